// Keyset cursors for newest-first pages: (time, id) of the last entry served. Rows are immutable in
// both keys, so each row present when a walk starts is on exactly one side of every cursor: it is
// served once, however many rows arrive meanwhile (new ones sort before the cursor).

export interface CursorPosition {
  time: number
  id: string
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`${position.time}:${position.id}`).toString('base64url')
}

/** Undefined when the text is not a cursor this hub issued. */
export function decodeCursor(text: string): CursorPosition | undefined {
  const decoded = Buffer.from(text, 'base64url').toString('utf8')
  const match = /^(\d{1,16}):([\w-]{1,100})$/.exec(decoded)
  if (match === null || Buffer.from(decoded).toString('base64url') !== text) return undefined
  return { time: Number(match[1]), id: match[2] as string }
}

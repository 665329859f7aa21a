// Fails loudly when a script runs on a Node older than the project's pinned Node 24. Plain
// JavaScript on purpose: it must run, and explain, on the old Node too.
const major = Number(process.versions.node.split('.')[0])
if (major < 24) {
  console.error(
    `outpost: Node ${process.versions.node} is too old; Node 24 or later is required.\n` +
      "Run commands through 'npm run' or 'npx' so the project's pinned Node (devDependency 'node') is used, " +
      "after 'npm ci'.",
  )
  process.exit(2)
}

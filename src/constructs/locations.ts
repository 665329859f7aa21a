// Public location codes a check may name. The agent runs checks in its own private location; these
// say where else the hub would run them, so an unknown code is a typo worth reporting.

export const LOCATIONS = ['us-east-1', 'us-west-1', 'eu-west-1', 'ap-southeast-1', 'ap-northeast-1'] as const
export type Location = (typeof LOCATIONS)[number]

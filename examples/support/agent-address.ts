// The examples check the agent's own health server, so they pass on any machine, offline too. Check
// files are evaluated inside the agent, which knows the port it serves on.

export const AGENT_HEALTH_PORT = Number(process.env.AGENT_HEALTH_PORT || 8081)
export const AGENT_HEALTH_URL = `http://127.0.0.1:${AGENT_HEALTH_PORT}`

/**
 * Which live connector the operator chose, with its own configuration. Each connector
 * parses its own OBOLUS_<NAME>_* variables; errors name the variable and never echo a secret.
 */
export type LiveConnectorConfig = never;

export const LIVE_CONNECTORS: readonly string[] = [];

/** Reads OBOLUS_LIVE_CONNECTOR. Unset (or empty): no live connector, and live payments are refused. */
export function parseLiveConnectorConfig(env: NodeJS.ProcessEnv): LiveConnectorConfig | null {
  const name = env.OBOLUS_LIVE_CONNECTOR ?? '';
  if (name === '') return null;
  throw new Error(`OBOLUS_LIVE_CONNECTOR must be one of: ${LIVE_CONNECTORS.join(', ') || '(none yet)'}; got '${name}'`);
}

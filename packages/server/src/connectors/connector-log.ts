/** Where a live connector says what an operator should know (a lost answer, a resend); pino's logger fits. */
export interface ConnectorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

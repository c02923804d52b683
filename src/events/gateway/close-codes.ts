/** WebSocket close codes of /sockets/events (4xxx mirror the HTTP statuses of the contract). */
export const CloseCode = {
  GoingAway: 1001,
  PolicyViolation: 1008,
  InternalError: 1011,
  TryAgainLater: 1013,
  Unauthorized: 4001,
  Forbidden: 4003,
  /** Unknown conversation, a malformed conversation id, or a conversation deleted while subscribed. */
  NotFound: 4004,
  /** Invalid query parameters (an error frame with the details comes first). */
  InvalidRequest: 4022,
} as const;

/** A close reason cut to the protocol's 123 bytes. */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let cut = text.slice(0, 123);
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1);
  return cut;
}

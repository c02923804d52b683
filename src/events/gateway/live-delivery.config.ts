import { ConfigError } from '../../config/app-config.js';

/** Tuning of WebSocket delivery, from the environment (every value has a production default). */
export interface LiveDeliveryConfig {
  /** WS_PING_INTERVAL_MS: a ping this often; a peer that has not answered the previous one is terminated. */
  pingIntervalMs: number;
  /** WS_AUTH_TIMEOUT_MS: how long a socket without a key may take to send its auth frame. */
  authTimeoutMs: number;
  /** WS_MAX_BUFFERED_BYTES: a live socket whose unsent data passes this is closed with 1013. */
  maxBufferedBytes: number;
  /** WS_RECONCILE_INTERVAL_MS: how often subscribed conversations are compared with the database, in case a notification went missing. */
  reconcileIntervalMs: number;
  /** WS_SHUTDOWN_GRACE_MS: how long shutdown waits for sockets to finish closing before cutting them. */
  shutdownGraceMs: number;
  /** WS_READ_BATCH: events read from the store per query. */
  readBatchSize: number;
}

const SETTINGS: Array<[keyof LiveDeliveryConfig, string, number, number, number]> = [
  ['pingIntervalMs', 'WS_PING_INTERVAL_MS', 30_000, 50, 3_600_000],
  ['authTimeoutMs', 'WS_AUTH_TIMEOUT_MS', 10_000, 50, 600_000],
  ['maxBufferedBytes', 'WS_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024],
  ['reconcileIntervalMs', 'WS_RECONCILE_INTERVAL_MS', 5_000, 50, 3_600_000],
  ['shutdownGraceMs', 'WS_SHUTDOWN_GRACE_MS', 5_000, 0, 600_000],
  ['readBatchSize', 'WS_READ_BATCH', 200, 1, 10_000],
];

export function loadLiveDeliveryConfig(env: NodeJS.ProcessEnv = process.env): LiveDeliveryConfig {
  const config = {} as LiveDeliveryConfig;
  for (const [field, name, fallback, min, max] of SETTINGS) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      config[field] = fallback;
      continue;
    }
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    config[field] = value;
  }
  return config;
}

export const LIVE_DELIVERY_CONFIG = Symbol('LIVE_DELIVERY_CONFIG');

import pg from 'pg';

/** Waits until PostgreSQL accepts connections (it may start after us), up to `timeoutMs`. */
export async function waitForDatabase(url: string, timeoutMs = 60_000, log: (line: string) => void = () => undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() + delay > deadline) {
        throw new Error(`PostgreSQL did not answer within ${timeoutMs / 1000} s: ${(error as Error).message}`);
      }
      if (attempt === 1 || attempt % 10 === 0) log(`Waiting for PostgreSQL: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 2_000);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

import http from 'node:http';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  text: string;
  headers: http.IncomingHttpHeaders;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is (no JSON encoding): for malformed bodies. */
  rawBody?: string;
  query?: Record<string, string | number | boolean | Array<string | number> | undefined>;
  headers?: Record<string, string>;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** A tiny JSON client over fetch that never throws on a status, so tests assert on it. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly defaultKey: string | null = null,
  ) {}

  withKey(key: string | null): HttpClient {
    return new HttpClient(this.baseUrl, key);
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
  patch<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PATCH', path, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.defaultKey : options.key;
    if (key) headers['X-Session-API-Key'] = key;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['Content-Type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    // node:http does not frame a GET body by itself (no chunking for GET): without a length the
    // server would read the body as the next request.
    if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
    // node:http rather than fetch: search sends a JSON body with GET, which fetch refuses.
    const response = await new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>(
      (resolve, reject) => {
        const request = http.request(url, { method, headers, agent: keepAlive }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
          );
          res.on('error', reject);
        });
        request.on('error', reject);
        request.end(body);
      },
    );
    const text = response.text;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, body: parsed as T, text, headers: response.headers };
  }
}

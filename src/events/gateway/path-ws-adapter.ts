import type { INestApplicationContext } from '@nestjs/common';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { WsAdapter } from '@nestjs/platform-ws';
import * as http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import type { WebSocketServer } from 'ws';

/** The upgrade request a gateway's handleConnection receives, with the path's `:name` segments. */
export type UpgradeRequest = http.IncomingMessage & { params: Record<string, string> };

type RoutedServer = WebSocketServer & { path: string; pathPattern?: RegExp };

/**
 * The stock WsAdapter routes an upgrade only to a gateway whose path equals the request's path.
 * This one also matches `:name` segments (`/sockets/events/:conversation_id`) and hands the values
 * to the gateway as `request.params`. Unmatched upgrades get a plain 404.
 */
export class PathWsAdapter extends WsAdapter {
  private readonly upgradeListeners = new Map<number, { server: http.Server; listener: (...args: any[]) => void }>();

  constructor(
    app: INestApplicationContext,
    private readonly serverOptions: { maxPayload?: number } = {},
  ) {
    super(app);
  }

  override create(port: number, options: Record<string, any> & { path?: string } = {}): any {
    return super.create(port, { ...this.serverOptions, ...options });
  }

  // Without @SubscribeMessage handlers the stock adapter would still JSON-parse every frame; gateways
  // that read their socket themselves skip that.
  override bindMessageHandlers(client: any, handlers: MessageMappingProperties[], transform: (data: any) => Observable<any>): void {
    if (handlers.length > 0) super.bindMessageHandlers(client, handlers, transform);
  }

  protected override ensureHttpServerExists(port: number, httpServer: http.Server = http.createServer()): http.Server | undefined {
    if (this.httpServersRegistry.has(port)) return undefined;
    this.httpServersRegistry.set(port, httpServer);
    const listener = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => this.routeUpgrade(port, request, socket, head);
    httpServer.on('upgrade', listener);
    this.upgradeListeners.set(port, { server: httpServer, listener });
    return httpServer;
  }

  override async dispose(): Promise<void> {
    for (const { server, listener } of this.upgradeListeners.values()) server.off('upgrade', listener);
    this.upgradeListeners.clear();
    await super.dispose();
  }

  private routeUpgrade(port: number, request: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    let pathname: string;
    try {
      pathname = new URL(request.url ?? '/', 'ws://localhost').pathname;
    } catch {
      return rejectUpgrade(socket, 400, 'Bad Request');
    }
    for (const server of (this.wsServersRegistry.get(port) ?? []) as RoutedServer[]) {
      server.pathPattern ??= compilePathPattern(server.path);
      const match = server.pathPattern.exec(pathname);
      if (!match) continue;
      let params: Record<string, string>;
      try {
        params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]));
      } catch {
        return rejectUpgrade(socket, 400, 'Bad Request');
      }
      (request as UpgradeRequest).params = params;
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request));
      return;
    }
    rejectUpgrade(socket, 404, 'Not Found');
  }
}

/** `/a/:id/b` → /^\/a\/(?<id>[^/]+)\/b\/?$/ */
export function compilePathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^:([A-Za-z_][A-Za-z0-9_]*)$/.exec(segment);
      return param ? `(?<${param[1]}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source.replace(/\/$/, '')}/?$`);
}

function rejectUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Graceful HTTP shutdown. From the moment shutdown begins (SIGTERM: the first lifecycle hook), every
 * response still to be written carries `Connection: close` and /ready answers 503, so keep-alive
 * clients and load balancers move to other instances while the requests already in flight finish.
 * Without it, a client that keeps sending on its keep-alive connection never lets that connection go
 * idle, the server's close never completes, and the process is eventually killed mid-request.
 */
@Injectable()
export class HttpDrain implements OnApplicationBootstrap, OnModuleDestroy {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  get isDraining(): boolean {
    return this.draining;
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.prependListener !== 'function') return;
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (this.draining) return closeAfter(response);
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
    });
  }

  onModuleDestroy(): void {
    this.draining = true;
    for (const response of this.inFlight) closeAfter(response);
    this.inFlight.clear();
  }
}

function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

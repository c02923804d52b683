import { Injectable } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/** Nest's own start-up chatter: one line per module and per route. */
const BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'WebSocketsController']);

/**
 * The pino logger Nest logs through, with the framework's start-up lines at debug: at the default
 * level a person starting the service sees the address and the first-start key, not 70 lines of wiring.
 */
@Injectable()
export class AppLogger extends Logger {
  override log(message: any, ...optionalParams: any[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && BOOT_CONTEXTS.has(context)) return super.debug(message, ...optionalParams);
    return super.log(message, ...optionalParams);
  }
}

import { RouteConfig } from '@nestjs/platform-fastify';

/** The queue routes answered before Nest: joining (POST), its proof-of-work challenge (GET) and polling (GET). */
export type QueueShortcutKind = 'join' | 'poll' | 'challenge';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which of the waiting room's shortcuts answers this route (set by @QueueShortcut()). */
    queueShortcut?: QueueShortcutKind;
  }
}

/**
 * Marks a waiting-room handler whose requests installQueueShortcuts answers before Nest. The mark
 * is route config (Nest's @RouteConfig), read once as Nest registers the route, so the shortcut
 * follows the route under a global prefix or URI versioning. Another @RouteConfig on the same
 * method would replace it.
 */
export const QueueShortcut = (kind: QueueShortcutKind): MethodDecorator => RouteConfig({ queueShortcut: kind });

/**
 * Sockets whose request Node cut for taking longer than `requestTimeout`. http/server.ts marks a
 * socket in its 'clientError' listener, right before it answers 408 and closes it; the body
 * parser (http/json-body.ts), whose read then aborts, reads the mark so that the request's log
 * line says 408 like the answer the client got, not 400 for an aborted body.
 */
export const timedOutSockets = new WeakSet<object>();

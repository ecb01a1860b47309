import { OPERATIONS, type OperationRoute, type Operations } from "../bindings/operations";

/** Carries one operation's call (its route and its arguments, in order) and brings its answer. */
export type Transport = (route: OperationRoute, args: readonly unknown[]) => Promise<unknown>;

/**
 * Every operation of the catalogue as a method that hands its arguments to `transport`: how a
 * backend gets its `Operations` without spelling any of them out.
 */
export function operationsOver(transport: Transport): Operations {
  const methods = Object.entries(OPERATIONS).map(([name, route]) => [
    name,
    (...args: unknown[]): Promise<unknown> => transport(route, args),
  ]);
  // Each method takes exactly the arguments its route lists, and answers what the operation does.
  return Object.fromEntries(methods) as unknown as Operations;
}

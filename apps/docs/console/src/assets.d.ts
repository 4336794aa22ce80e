/**
 * Modules the console's bundler (scripts/lib/console-bundle.mjs) provides: its stylesheet, and
 * two modules generated from the bundled spec at build time.
 */
declare module '*.css';

declare module 'virtual:console-spec' {
  /** The spec's operations as the console needs them (a `ConsoleSpec`, see spec-types.ts). */
  const spec: unknown;
  export default spec;
}

declare module 'virtual:spec-validators' {
  /** Ajv standalone validators of the answers' component schemas, by schema name. */
  const validators: Record<string, unknown>;
  export default validators;
}

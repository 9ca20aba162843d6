/**
 * The OpenTelemetry API, if the host has it. `@opentelemetry/api` is an optional peer dependency:
 * a host without it gets no telemetry and no error. Loaded synchronously with `require` (the
 * package's only Node build is CommonJS, whatever way it is imported, and keeps its globals — the
 * tracer and meter providers a host's SDK registers — on `globalThis`), once, on first use.
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

export type { OtelApi };

const API_PACKAGE = '@opentelemetry/api';
let loaded: { readonly api: typeof OtelApi | undefined } | undefined;

/** The API, or undefined when the host has not installed it (then everything here is a no-op). */
export function otelApi(): typeof OtelApi | undefined {
  loaded ??= { api: load(API_PACKAGE) };
  return loaded.api;
}

function load(specifier: string): typeof OtelApi | undefined {
  try {
    const api = createRequire(import.meta.url)(specifier) as Partial<typeof OtelApi>;
    return isOtelApi(api) ? api : undefined;
  } catch {
    // Not installed (MODULE_NOT_FOUND), or unloadable: telemetry stays off, the runtime works.
    return undefined;
  }
}

/** Whether what loaded is the API: a broken or foreign module has no `trace.getTracer`. */
function isOtelApi(candidate: Partial<typeof OtelApi>): candidate is typeof OtelApi {
  return typeof candidate.trace?.getTracer === 'function';
}

/**
 * The bounds of the inspector server: how many connections, how many bytes a producer may send,
 * how many bytes may wait for a slow viewer, and how many bytes of other processes' actors are
 * kept for viewers that connect late. Whatever passes a bound is dropped or its connection closed;
 * nothing grows without limit.
 */

export interface InspectorLimits {
  /** Viewers and producers connected at once; past it a new connection is answered 503. */
  readonly maxConnections: number;
  /** The largest message a producer may send; a larger one closes its connection (1009). */
  readonly maxMessageBytes: number;
  /** All a producer may send over one connection; past it the connection is closed (1008). */
  readonly maxProducerBytes: number;
  /** Bytes waiting to be written to one viewer; a viewer that falls further behind is dropped. */
  readonly maxBufferedBytes: number;
  /** Bytes of producers' actors kept for late viewers; past it the oldest are forgotten. */
  readonly maxRetainedBytes: number;
}

export const DEFAULT_INSPECTOR_LIMITS: InspectorLimits = {
  maxConnections: 32,
  maxMessageBytes: 1024 * 1024,
  maxProducerBytes: 256 * 1024 * 1024,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxRetainedBytes: 16 * 1024 * 1024,
};

/** The defaults with the host's own values over them. */
export function inspectorLimits(given: Partial<InspectorLimits> | undefined): InspectorLimits {
  return { ...DEFAULT_INSPECTOR_LIMITS, ...given };
}

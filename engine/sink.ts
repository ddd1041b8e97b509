/**
 * The notification sink: the `notify_url` of the kit's own set-up payments. A payment request carries a notify_url
 * (Events 1), but only the events family judges notifications, on payments of its own; the receiver answers the
 * sink's requests at once and keeps nothing of them, so set-up payments neither fill its bounds nor cost memory.
 */

/** Query parameter that marks a sink URL. */
const SINK_PARAM = 'pagi-sink';

/** The sink URL of a receiver's notify_url. */
export function sinkUrlOf(notifyUrl: string): string {
  let sink = sinks.get(notifyUrl);
  if (sink === undefined) {
    const url = new URL(notifyUrl);
    url.searchParams.set(SINK_PARAM, '1');
    sinks.set(notifyUrl, (sink = url.href));
  }
  return sink;
}

/** Sink URLs by notify URL (a run has one or two; every sample body asks). */
const sinks = new Map<string, string>();

/** Whether a request target (path and query, as a server sees it) is the sink's. */
export function isSinkRequest(target: string | undefined): boolean {
  return new URL(target ?? '/', 'http://receiver.invalid').searchParams.has(SINK_PARAM);
}

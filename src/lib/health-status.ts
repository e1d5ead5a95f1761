// API Umbrella's health statuses, best first: what /api-umbrella/v1/health
// answers and takes as wait_for_status, and what `parasol health` waits for.
export const HEALTH_STATUSES = ['green', 'yellow', 'red'] as const;

export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export function isHealthStatus(value: unknown): value is HealthStatus {
  return (HEALTH_STATUSES as readonly unknown[]).includes(value);
}

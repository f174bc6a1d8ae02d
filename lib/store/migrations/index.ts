import type { Migration } from "kysely";
import * as foundation from "./001-foundation";
import * as runs from "./002-runs";
import * as files from "./003-files";
import * as models from "./004-models";
import * as webhooks from "./005-webhooks";
import * as users from "./006-users";
import * as eventsByRun from "./007-events-by-run";
import * as runCreators from "./008-run-creators";
import * as providerOutages from "./009-provider-outages";
import * as webhookFailureGap from "./010-webhook-failure-gap";
import * as queueOrder from "./011-queue-order";
import * as runTimings from "./012-run-timings";
import * as shareLinks from "./013-share-links";
import * as pauseBy from "./014-pause-by";
import * as scheduledTasks from "./015-scheduled-tasks";
import * as queueCounts from "./016-queue-counts";
import * as balanceBound from "./017-balance-bound";
import * as studioSessions from "./018-studio-sessions";
import * as promptSearch from "./019-prompt-search";
import * as outputRetention from "./020-output-retention";
import * as memberships from "./021-memberships";
import * as invitations from "./022-invitations";
import * as auditEvents from "./023-audit-events";
import * as budgets from "./024-budgets";
import * as budgetAlerts from "./025-budget-alerts";
import * as lowCredit from "./026-low-credit";
import * as providerCost from "./027-provider-cost";
import * as budgetAlertsWhen from "./028-budget-alerts-when";
import * as remoteCatalog from "./029-remote-catalog";
import * as fairQueue from "./030-fair-queue";
import * as routeAttempts from "./031-route-attempts";
import * as runTraceparent from "./032-run-traceparent";

// Every migration, in order. Names never change once landed.
export const MIGRATIONS: Record<string, Migration> = {
  "001-foundation": foundation,
  "002-runs": runs,
  "003-files": files,
  "004-models": models,
  "005-webhooks": webhooks,
  "006-users": users,
  "007-events-by-run": eventsByRun,
  "008-run-creators": runCreators,
  "009-provider-outages": providerOutages,
  "010-webhook-failure-gap": webhookFailureGap,
  "011-queue-order": queueOrder,
  "012-run-timings": runTimings,
  "013-share-links": shareLinks,
  "014-pause-by": pauseBy,
  "015-scheduled-tasks": scheduledTasks,
  "016-queue-counts": queueCounts,
  "017-balance-bound": balanceBound,
  "018-studio-sessions": studioSessions,
  "019-prompt-search": promptSearch,
  "020-output-retention": outputRetention,
  "021-memberships": memberships,
  "022-invitations": invitations,
  "023-audit-events": auditEvents,
  "024-budgets": budgets,
  "025-budget-alerts": budgetAlerts,
  "026-low-credit": lowCredit,
  "027-provider-cost": providerCost,
  "028-budget-alerts-when": budgetAlertsWhen,
  "029-remote-catalog": remoteCatalog,
  "030-fair-queue": fairQueue,
  "031-route-attempts": routeAttempts,
  "032-run-traceparent": runTraceparent,
};

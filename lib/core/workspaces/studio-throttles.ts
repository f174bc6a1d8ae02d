// The studio's throttles. Sign-in tries are counted per email and per IP address, and an email
// that runs out of tries is locked for a while that doubles with each lockout (every try is an
// scrypt: the throttle is also what keeps guessing from eating the CPU). A locked email is told
// when to try again, whether or not a user has it. Studio actions and live-run streams are
// counted per signed-in user. Counts live in this process's memory: with several processes, each
// counts its own share.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";

const MINUTE = 60;
const DAY = 86_400;

function retryAfter(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

function throttled(
  code: "rate_limit_exceeded" | "ip_rate_limit_exceeded",
  message: (seconds: number) => string,
  seconds: number,
): ApiError {
  return new ApiError(code, message(seconds), { headers: { "Retry-After": String(seconds) } });
}

export interface SignInThrottle {
  /** Counts one try; throws a 429 ApiError (with Retry-After) when the email or the IP has none left. */
  attempt(email: string, ip: string): Promise<void>;
  /** A right password: the email's count and its lockouts start over. */
  succeeded(email: string): Promise<void>;
}

export function createSignInThrottle(
  limits: { perEmail: number; perIp: number; firstLockSeconds: number; longestLockSeconds: number } = LIMITS.signIn,
): SignInThrottle {
  const byEmail = new RateLimiterMemory({ points: limits.perEmail, duration: MINUTE, keyPrefix: "sign-in-email" });
  const byIp = new RateLimiterMemory({ points: limits.perIp, duration: MINUTE, keyPrefix: "sign-in-ip" });
  // Lockouts of each email over the last day: the next lasts twice as long as the one before.
  const lockouts = new RateLimiterMemory({ points: 1_000_000, duration: DAY, keyPrefix: "sign-in-lockouts" });
  const emailKey = (email: string) => email.trim().toLowerCase().slice(0, 320);

  return {
    async attempt(rawEmail, ip) {
      const email = emailKey(rawEmail);
      try {
        await byIp.consume(ip || "unknown");
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        throw throttled(
          "ip_rate_limit_exceeded",
          (s) => `Too many sign-in attempts from this IP address. Try again in ${s} s.`,
          retryAfter(res),
        );
      }
      try {
        await byEmail.consume(email);
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        let seconds = retryAfter(res);
        // The first refused try of a window starts a lockout; tries during one do not lengthen it.
        if (res.consumedPoints === limits.perEmail + 1) {
          const count = (await lockouts.penalty(email, 1)).consumedPoints;
          seconds = Math.min(limits.firstLockSeconds * 2 ** (count - 1), limits.longestLockSeconds);
          await byEmail.block(email, seconds);
        }
        throw throttled(
          "rate_limit_exceeded",
          (s) => `Too many sign-in attempts for this email. Try again in ${s} s.`,
          seconds,
        );
      }
    },
    async succeeded(rawEmail) {
      const email = emailKey(rawEmail);
      await Promise.all([byEmail.delete(email), lockouts.delete(email)]);
    },
  };
}

export interface StudioUserBudget {
  /** Counts one action or stream of a signed-in user; throws a 429 ApiError past the budget. */
  spend(userId: string): Promise<void>;
}

export function createStudioUserBudget(perMinute: number = LIMITS.studioRequestsPerUserPerMin): StudioUserBudget {
  const byUser = new RateLimiterMemory({ points: perMinute, duration: MINUTE, keyPrefix: "studio-user" });
  return {
    async spend(userId) {
      try {
        await byUser.consume(userId);
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        throw throttled(
          "rate_limit_exceeded",
          (s) => `Too many studio actions: the limit is ${perMinute} a minute for each user. Try again in ${s} s.`,
          retryAfter(res),
        );
      }
    },
  };
}

// One object per running app's context, made on first use: the services the
// web admin shares between its pages (session store, sign-in throttle, …).
// A reload's app has a context of its own and gets its own, made from its
// config; what they count lives in the store or the process's rate limiter.
import type { AppContext } from '../context.js';

export function perContext<T extends object>(make: (context: AppContext) => T): (context: AppContext) => T {
  const made = new WeakMap<AppContext, T>();
  return (context) => {
    let value = made.get(context);
    if (value === undefined) {
      value = make(context);
      made.set(context, value);
    }
    return value;
  };
}

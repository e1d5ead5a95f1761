// Rules over more than one key, or over the file a key names. The loader
// checks them, so `parasol config check` refuses every config that
// `parasol serve` would refuse at start-up.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { geoIpFileProblem } from '../analytics/geoip.js';
import { dataDirProblemOf } from '../store/data-dir.js';
import type { Config } from './schema.js';
import { httpsKeysProblem } from './tls-files.js';

/** What is wrong, as "key: reason", or null. */
export function crossKeyProblem(config: Config): string | null {
  if (!config.signup.allow_duplicate_emails && config.mailer.smtp.host === null) {
    return 'signup.allow_duplicate_emails: false needs mailer.smtp.host: keys are then sent only by email, so that signup never tells whether an address already has one';
  }
  if (config.signup.verify_email && config.mailer.smtp.host === null) {
    return 'signup.verify_email: true needs mailer.smtp.host: keys are then sent only by email';
  }
  if (config.signup.send_notify_email && config.mailer.smtp.host === null) return 'signup.send_notify_email: true needs mailer.smtp.host to send the notices';
  if (config.signup.send_notify_email && config.signup.notify_email === null && config.contact_email === null) {
    return 'signup.send_notify_email: true needs signup.notify_email (or contact_email) to send the notices to';
  }
  const dataDir = dataDirProblemOf(config.data_dir);
  if (dataDir !== null) return dataDir;
  const homepage = config.homepage.file;
  if (homepage !== null) {
    // Resolved as the homepage reads it: against the working directory.
    const path = resolve(homepage);
    try {
      accessSync(path, constants.R_OK);
      // A directory passes the access check but not the read at start-up.
      if (statSync(path).isDirectory()) return `homepage.file: cannot read ${homepage}: EISDIR`;
    } catch (error) {
      return `homepage.file: cannot read ${homepage}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
  }
  const geoipProblem = config.analytics.geoip_file === null ? null : geoIpFileProblem(config.analytics.geoip_file);
  if (geoipProblem !== null) return geoipProblem;
  return httpsKeysProblem(config);
}

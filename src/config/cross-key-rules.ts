// Rules over more than one key, or over the file a key names. The loader
// checks them, so `parasol config check` refuses every config that
// `parasol serve` would refuse at start-up.
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { geoIpFileProblem } from '../analytics/geoip.js';
import { upstreamCaFileProblem } from '../gateway/upstream-tls.js';
import { dataDirProblemOf } from '../store/data-dir.js';
import { about, unreadableFile, type KeyProblem } from './messages.js';
import type { Config } from './schema.js';
import { httpsKeysProblem } from './tls-files.js';

/** What is wrong, or null. */
export function crossKeyProblem(config: Config): KeyProblem | null {
  const { homepage, analytics, proxy } = config;
  return (
    signupMailProblem(config) ??
    about(['data_dir'], dataDirProblemOf(config.data_dir)) ??
    about(['homepage.file'], homepage.file === null ? null : homepageFileProblem(homepage.file)) ??
    about(['analytics.geoip_file'], analytics.geoip_file === null ? null : geoIpFileProblem(analytics.geoip_file)) ??
    about(['proxy.upstream_ca_file'], proxy.upstream_ca_file === null ? null : upstreamCaFileProblem(proxy.upstream_ca_file)) ??
    httpsKeysProblem(config)
  );
}

/** Signup settings that send mail, without a mailer (or an address) to send it. */
function signupMailProblem({ signup, mailer, contact_email }: Config): KeyProblem | null {
  const noMailer = mailer.smtp.host === null;
  if (!signup.allow_duplicate_emails && noMailer) {
    return about(
      ['signup.allow_duplicate_emails', 'mailer.smtp.host'],
      'signup.allow_duplicate_emails: false needs mailer.smtp.host: keys are then sent only by email, so that signup never tells whether an address already has one',
    );
  }
  if (signup.verify_email && noMailer) return about(['signup.verify_email', 'mailer.smtp.host'], 'signup.verify_email: true needs mailer.smtp.host: keys are then sent only by email');
  if (signup.send_notify_email && noMailer) return about(['signup.send_notify_email', 'mailer.smtp.host'], 'signup.send_notify_email: true needs mailer.smtp.host to send the notices');
  if (signup.send_notify_email && signup.notify_email === null && contact_email === null) {
    return about(
      ['signup.send_notify_email', 'signup.notify_email', 'contact_email'],
      'signup.send_notify_email: true needs signup.notify_email (or contact_email) to send the notices to',
    );
  }
  return null;
}

function homepageFileProblem(file: string): string | null {
  try {
    // Resolved as the homepage reads it: against the working directory.
    const path = resolve(file);
    accessSync(path, constants.R_OK);
    // A directory passes the access check but not the read at start-up.
    if (statSync(path).isDirectory()) return unreadableFile('homepage.file', file, { code: 'EISDIR' });
    return null;
  } catch (error) {
    return unreadableFile('homepage.file', file, error);
  }
}

// Module customization hooks (node --import ./module-log-register.mjs): every module URL an
// `import` resolves to is appended to the file named in the registration data, so a test can
// tell which packages a real server process loaded.
import { appendFileSync } from 'node:fs';

let log;

export const initialize = (data) => {
  log = data.log;
};

export const resolve = async (specifier, context, next) => {
  const resolved = await next(specifier, context);
  appendFileSync(log, `${resolved.url}\n`);
  return resolved;
};

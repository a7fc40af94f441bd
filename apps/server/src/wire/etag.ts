import type { PlantVersion } from '../ports/plant-store.js';

/**
 * A plant's ETag (RFC 9110 §8.8.3): its version in base 36, quoted. Strong, opaque to clients,
 * and as unique as the version (never given twice, see PlantVersion). The routes send it and the
 * change feed writes it into each change, so both spell it here.
 */
export const etagOf = (version: PlantVersion): string => `"${version.toString(36)}"`;

/**
 * The version an opaque-tag (quotes included) names, or undefined when it is not of the form
 * etagOf writes: such a tag is well-formed but names no version of ours, so it never matches.
 */
export const versionOfEtag = (opaque: string): PlantVersion | undefined => {
  const inner = opaque.slice(1, -1);
  if (!/^(?:0|[1-9a-z][0-9a-z]{0,10})$/.test(inner)) return undefined;
  const version = parseInt(inner, 36);
  return Number.isSafeInteger(version) ? version : undefined;
};

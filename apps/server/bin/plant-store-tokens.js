#!/usr/bin/env node
// A bin that exists before the build (pnpm links bins at install time, when dist/ may not
// exist yet, and warns for each missing one); the program itself is the built dist/tokens/cli.js.
import '../dist/tokens/cli.js';

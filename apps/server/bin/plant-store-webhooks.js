#!/usr/bin/env node
// A bin that exists before the build (see plant-store-tokens.js); the program is dist/webhooks/cli.js.
import '../dist/webhooks/cli.js';

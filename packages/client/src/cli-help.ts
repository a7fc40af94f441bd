/** The help texts of the `plant-store` command line (run-cli.ts), one per command. */

export const DEFAULT_URL = 'http://127.0.0.1:3000';

const GLOBAL_HELP = `Options for every command:
  --url URL        the server (env PLANT_STORE_URL, default ${DEFAULT_URL})
  --token TOKEN    the bearer token (env PLANT_STORE_TOKEN; prefer the variable, flags show in ps)
  --timeout MS     per-request timeout in milliseconds (default 30000)
  --json           print one JSON document on stdout instead of text
  -h, --help       show help`;

const IF_MATCH_HELP = `  --if-match ETAG  only if the plant still has this ETag (as "get" printed it,
                   quotes included: --if-match '"1k3"'); otherwise exit 1 and change nothing`;

export const HELP = {
  top: `Usage: plant-store <command> [options]

Commands:
  create --name NAME [--tag TAG] [--id ID]   add a plant (safe to retry: see create --help)
  get <id>                                   show one plant and its ETag
  update <id> [--name N] [--tag T | --no-tag] [--if-match ETAG]
                                             change a plant's name or tag
  put <id> --name N [--tag T] [--if-match ETAG | --if-none-match]
                                             replace a plant whole, or create it with this id
  delete <id> [--if-match ETAG]              delete a plant
  list [--q TEXT] [--tag T] [--sort S] [--count] [--limit N] [--all]
                                             list, search and count plants
  export [--q TEXT] [--tag T] [--sort S] [--limit N]
                                             every plant that matches, as JSON Lines
  import <file.jsonl> [--concurrency N]      create the plants of a JSON Lines file, 1000 lines
                                             a request (safe to run again after an interruption)
  watch [--since N] [--tag T] [--json]       print each change as it happens, until Ctrl-C

${GLOBAL_HELP}
  -V, --version    print the version

Exit codes: 0 success, 1 the request failed (the server's message is on stderr), 2 usage error,
130 interrupted (Ctrl-C).
Run "plant-store <command> --help" for a command's details.
`,
  create: `Usage: plant-store create --name NAME [--tag TAG] [--id ID] [options]

Adds a plant and prints it with its id. Without --id the server assigns one.
Every create sends an Idempotency-Key (a fresh UUIDv7 unless you pass --idempotency-key) and
is retried with that same key after a lost connection, a timeout or a 5xx: the server
stores the plant at most once per key and answers a repeat with its first answer, which
the output marks as replayed.

  --name NAME      1–200 characters (required)
  --tag TAG        1–100 characters
  --id ID          an integer from 1 to 9007199254740991
  --idempotency-key KEY
                   1–255 characters from A–Z a–z 0–9 . _ : ~ + / = -; run the same
                   create with the same key again (after a failure, from a script) and
                   the plant is still stored only once

${GLOBAL_HELP}
`,
  get: `Usage: plant-store get <id> [options]

Prints one plant and its ETag (pass that to update or delete --if-match). Exits 1 with
"no plant with id …" when there is none.

${GLOBAL_HELP}
`,
  update: `Usage: plant-store update <id> [--name NAME] [--tag TAG | --no-tag] [--if-match ETAG] [options]

Changes a plant (a JSON Merge Patch: what you do not pass stays as it is) and prints it
with its new ETag. Exits 1 with "no plant with id …" when there is none.

  --name NAME      the new name, 1–200 characters
  --tag TAG        the new tag, 1–100 characters
  --no-tag         remove the tag
${IF_MATCH_HELP}

To change a plant without overwriting someone else's change: "plant-store get <id>", then
update with --if-match and the ETag it printed. If the plant changed in between, update
exits 1 and changes nothing: get it again and decide. An update is retried after a lost
connection or a 5xx; when the lost attempt had been applied, the retry finds the new ETag
and exits 1 saying so.

${GLOBAL_HELP}
`,
  put: `Usage: plant-store put <id> --name NAME [--tag TAG] [--if-match ETAG | --if-none-match] [options]

Makes the plant with this id exactly what you pass: creates it when there is none, replaces
it otherwise, and prints it with its ETag. A tag you leave out is removed (unlike update).

  --name NAME      the name, 1–200 characters (required)
  --tag TAG        the tag, 1–100 characters; without it the plant has no tag
${IF_MATCH_HELP}
                   (a plant that does not exist is not replaced either)
  --if-none-match  only create: if a plant with this id exists, exit 1 and change nothing

A put is retried after a lost connection or a 5xx: the same plant sent twice leaves the same
plant. When the lost attempt had been applied, the retry finds the plant it made: it prints
"Replaced", or with --if-none-match exits 1 saying so.

${GLOBAL_HELP}
`,
  delete: `Usage: plant-store delete <id> [--if-match ETAG] [options]

Deletes a plant. Exits 1 with "no plant with id …" when there is none.

${IF_MATCH_HELP}

${GLOBAL_HELP}
`,
  list: `Usage: plant-store list [--q TEXT] [--tag TAG] [--sort ORDER] [--count] [--limit N]
                         [--after ID | --cursor C] [--all] [options]

Prints plants, one per line: id, name and tag separated by tabs. Without --all it prints one
page and, when there are more, the command for the next page (on stderr).

  --q TEXT         only plants whose name contains TEXT, ignoring case and compatibility
                   forms: --q fern finds "Boston Fern" and "FERNLEAF" (1–100 characters;
                   % and _ are ordinary characters; write --q=-x for a TEXT that starts with -)
  --tag TAG        only plants whose tag is exactly TAG (no case folding)
  --sort ORDER     id (default), -id (newest first), name or -name (by name, ignoring case)
  --count          also print how many plants match --q and --tag in the whole store:
                   "total: N" on stderr, or "total" in the --json object (costs a count)
  --limit N        plants per page, 1–1000 (default 100)
  --after ID       with the id orders: start after this id (default: from the beginning)
  --cursor C       with the name orders: start where the page that printed C ended
  --all            follow the pages to the end (--json then prints one array)

${GLOBAL_HELP}
`,
  export: `Usage: plant-store export [--q TEXT] [--tag TAG] [--sort ORDER] [--limit N] [options]

Writes every plant that matches to stdout as JSON Lines, one {"id","name","tag"?} object per
line (as the API returns them), following the pages to the end. A slow reader slows the export
down instead of filling memory. On a terminal, stderr shows a progress bar (done/total, rate,
ETA; the total is counted once, on the first page); when stderr is not a terminal, only errors.

  --q TEXT         only plants whose name contains TEXT (as for list)
  --tag TAG        only plants whose tag is exactly TAG
  --sort ORDER     id (default), -id, name or -name
  --limit N        plants per request, 1–1000 (default 100)

Example: plant-store export --tag shade > shade.jsonl

${GLOBAL_HELP}
`,
  import: `Usage: plant-store import <file.jsonl> [--concurrency N] [options]

Creates one plant per non-blank line of the file: a JSON object {"name", "tag"?, "id"?} as
create takes it (what export writes). The lines go in batches cut by the file alone, lines
1–1000, 1001–2000 and so on, each batch one request (POST /plants/batch, all of it or none)
with an Idempotency-Key made from the file's content and the batch's place in it. So running
the same file again after an interruption (Ctrl-C, a lost connection, a crash) creates nothing
twice and leaves nothing out: the batches the server already stored are answered with their
saved result and their lines counted as replayed. Run it again with the same token and the
same version of this command, within the server's idempotency retention time (24 hours unless
configured).

A batch the server refuses as a whole (a line it finds invalid, an id that is taken or given
twice, a batch too large for its BULK_BODY_LIMIT_BYTES, a server without batches), or that
holds a line that is not a valid plant, goes line by line instead, each line with a key of its
own (the file's content, the line's number and its text), so that each line's outcome is known.
A line whose id is taken counts as already present when the plant there has the same name and
tag, else as failed. Each failed line is printed on stderr as it happens, with its number and
the server's message or what is wrong with it ("line 7: name: expected 1–200 characters, got
0"); at the end stderr gets one summary line:
  created N, replayed N, already present N, failed N
(with --json, that summary is one JSON object on stdout instead). On a terminal, stderr also
shows a progress bar (lines done/total, rate, ETA).

  --concurrency N  how many requests are sent at once, batches or lines, 1–64 (default 8)

Exit codes: 0 every line created, replayed or already present; 1 a line failed; 2 usage error
(no file, an unreadable file, a bad option); 130 interrupted (it prints the summary so far;
run the same import again to finish).

${GLOBAL_HELP}
`,
  watch: `Usage: plant-store watch [--since N] [--tag T] [--json] [options]

Prints every change of a plant as the server commits it, one line each, in order, until Ctrl-C:
  42 plant.created 7 "Monstera" tropical
  43 plant.updated 7 "Monstera deliciosa" tropical
  44 plant.deleted 7
(the change's number, its type, the plant's id, then its name and tag after the change). A
patch that changed nothing is not a change. When the connection is lost or the server restarts,
watch reconnects by itself and goes on after the last change printed: none is missed or printed
twice. A reader that stops (| head) ends it quietly.

  --since N        start after change number N (0: every change the server still keeps);
                   default: only the changes from now on
  --tag T          only the changes of plants with tag T before or after the change; a plant
                   whose tag changes away from T (or is removed) prints as
                     45 plant.left 7
                   (it still exists; it is no longer tagged T)
  --json           print each change as the server sends it, one JSON object per line:
                   {"seq","type","timestamp","data","etag"?}

Exit codes: 130 stopped with Ctrl-C (its normal end); 1 the server no longer keeps the changes
after N (they expired: read the plants again, then watch without --since) or another failure;
2 usage error.

${GLOBAL_HELP}
`,
} as const;

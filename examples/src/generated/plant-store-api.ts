// Generated from the Plant Store's GET /openapi.json by openapi-typescript: do not edit.
// Make it again with `pnpm -C examples generate` against a running server.
export interface paths {
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List plants, one page at a time
         * @description Needs scope `plants:read`. Plants in the order `sort` names (ascending id by default), only those whose tag is `tag` and whose name contains `q` when they are given, one keyset page at a time. An id order continues after `after`; a name order continues at the `cursor` the previous page’s `Link` carries. When the page is full a `Link: <…>; rel="next"` header names the next page with every parameter it needs; a shorter page has none. The query string is decoded as `application/x-www-form-urlencoded` (`+` is a space, as `URLSearchParams` writes it); invalid percent-encoding or UTF-8, a parameter without `=`, an unknown or repeated parameter, `after` with a name order, `cursor` with an id order → 400. A page sorted by id or by name, with or without a tag, or filtered by a `q` of at least 3 characters, costs the same whatever the store holds (an index serves it); a `q` of 1–2 characters may read the plants in order until the page is full. With `Prefer: count=exact` the response also says how many plants match in the whole store (`X-Total-Count`), which costs what the matches cost; without it no count is made.
         */
        get: operations["listPlants"];
        put?: never;
        /**
         * Create a plant
         * @description Needs scope `plants:write`. `Content-Type` must be `application/json` (a `charset=utf-8` parameter is fine); any other media type, or a `Content-Encoding` other than `identity`, → 415. The body may be at most 16 KiB as sent (configurable) → else 413; it must be valid UTF-8 → else 400. When `id` is absent the server assigns one that never collides with an existing plant.
         */
        post: operations["createPlant"];
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, POST, OPTIONS`.
         */
        options: operations["optionsPlants"];
        /**
         * List plants, one page at a time (headers only)
         * @description As `GET`, with the same status and headers and no body. Needs scope `plants:read`. Plants in the order `sort` names (ascending id by default), only those whose tag is `tag` and whose name contains `q` when they are given, one keyset page at a time. An id order continues after `after`; a name order continues at the `cursor` the previous page’s `Link` carries. When the page is full a `Link: <…>; rel="next"` header names the next page with every parameter it needs; a shorter page has none. The query string is decoded as `application/x-www-form-urlencoded` (`+` is a space, as `URLSearchParams` writes it); invalid percent-encoding or UTF-8, a parameter without `=`, an unknown or repeated parameter, `after` with a name order, `cursor` with an id order → 400. A page sorted by id or by name, with or without a tag, or filtered by a `q` of at least 3 characters, costs the same whatever the store holds (an index serves it); a `q` of 1–2 characters may read the plants in order until the page is full. With `Prefer: count=exact` the response also says how many plants match in the whole store (`X-Total-Count`), which costs what the matches cost; without it no count is made.
         */
        head: operations["headPlants"];
        patch?: never;
        trace?: never;
    };
    "/plants/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the changes of the store
         * @description Needs scope `plants:read`. Every committed change of a plant (a create, an update that changed it, a delete, an import) has a number, increasing in commit order over the whole store: a reader that has seen a number never later meets a smaller one it has not seen. This answers the changes numbered above `since` (or `Last-Event-ID`, which wins when both are sent; neither: only changes committed after the request arrived) in number order. With `Accept: text/event-stream` the answer is a stream that stays open: `retry: 2000`, then each change as an event (`id:` its number, `event:` its type, `data:` the change as one line of JSON), and a comment line at least every `CHANGES_HEARTBEAT_MS`. It ends when the client leaves, at the start of a shutdown, within 5 s of the token's revocation or expiry, or once more than `CHANGES_MAX_BUFFER_BYTES` wait unread; resume with `Last-Event-ID`. With `Accept: application/json`, `*\/*` or none: a JSON page of at most `limit` changes and a `Link` to the next; `wait` holds an empty page until a change arrives or the seconds pass (long polling). Any other `Accept` → 406. A stream or a waiting long poll counts once against the rate limit; an instance holds at most `CHANGES_MAX_STREAMS` of them (beyond: 503 with `Retry-After`). `EventSource` cannot send a bearer token: read the stream with `fetch`. With `tag`, only the changes of plants that have that tag before or after the change: a plant that enters the subset arrives as the change that brought it (`plant.created`, or `plant.updated` with the whole plant), one that leaves it (its tag changed or removed) as `plant.left` (`data` its id, no `etag`; the plant still exists), a delete of one of its plants as `plant.deleted`; every other change has the same `seq`, `timestamp` and `data` as in the whole feed. Its position keeps moving when nothing matches: a JSON page that is not full links to the newest change number the answer saw, and a stream sends `event: bookmark` (`id:` and `data: {"seq":M}`) at least every `CHANGES_HEARTBEAT_MS` while it has passed changes it did not send, so a client that resumes with `Last-Event-ID` reads none of them again and meets no 410 only because its subset was quiet.
         */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, OPTIONS`.
         */
        options: operations["optionsChanges"];
        /**
         * Follow the changes of the store (headers only)
         * @description As `GET`, with the same status and headers and no body. Needs scope `plants:read`. Every committed change of a plant (a create, an update that changed it, a delete, an import) has a number, increasing in commit order over the whole store: a reader that has seen a number never later meets a smaller one it has not seen. This answers the changes numbered above `since` (or `Last-Event-ID`, which wins when both are sent; neither: only changes committed after the request arrived) in number order. With `Accept: text/event-stream` the answer is a stream that stays open: `retry: 2000`, then each change as an event (`id:` its number, `event:` its type, `data:` the change as one line of JSON), and a comment line at least every `CHANGES_HEARTBEAT_MS`. It ends when the client leaves, at the start of a shutdown, within 5 s of the token's revocation or expiry, or once more than `CHANGES_MAX_BUFFER_BYTES` wait unread; resume with `Last-Event-ID`. With `Accept: application/json`, `*\/*` or none: a JSON page of at most `limit` changes and a `Link` to the next; `wait` holds an empty page until a change arrives or the seconds pass (long polling). Any other `Accept` → 406. A stream or a waiting long poll counts once against the rate limit; an instance holds at most `CHANGES_MAX_STREAMS` of them (beyond: 503 with `Retry-After`). `EventSource` cannot send a bearer token: read the stream with `fetch`. With `tag`, only the changes of plants that have that tag before or after the change: a plant that enters the subset arrives as the change that brought it (`plant.created`, or `plant.updated` with the whole plant), one that leaves it (its tag changed or removed) as `plant.left` (`data` its id, no `etag`; the plant still exists), a delete of one of its plants as `plant.deleted`; every other change has the same `seq`, `timestamp` and `data` as in the whole feed. Its position keeps moving when nothing matches: a JSON page that is not full links to the newest change number the answer saw, and a stream sends `event: bookmark` (`id:` and `data: {"seq":M}`) at least every `CHANGES_HEARTBEAT_MS` while it has passed changes it did not send, so a client that resumes with `Last-Event-ID` reads none of them again and meets no 410 only because its subset was quiet.
         */
        head: operations["headChanges"];
        patch?: never;
        trace?: never;
    };
    "/plants/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create many plants at once, all or nothing
         * @description Needs scope `plants:write`. The body is a JSON array of 1–1000 plants, each with the rules of `POST /plants` (`name`, optional `tag`, optional `id`); `Content-Type` and `Content-Encoding` as there. The body may be at most 4 MiB (4194304 bytes) as sent by default (`BULK_BODY_LIMIT_BYTES`) → else 413. The whole array is created in one transaction, or nothing is: each plant gets its own change in the log and its own `plant.created` event, all in the one commit, so a follower never sees part of an array (the order of its changes among themselves is the server's). Server-assigned ids never collide with existing plants nor with the ids the same array gives. A rate limit counts the array as one request.
         */
        post: operations["createPlants"];
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: POST, OPTIONS`.
         */
        options: operations["optionsPlantsBatch"];
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        /**
         * Read one plant
         * @description Needs scope `plants:read`. With `If-None-Match` naming the current ETag (or `*`): 304 without a body, so a client can check a copy it has cheaply. With `If-Match` not naming it: 412.
         */
        get: operations["getPlant"];
        /**
         * Replace a plant, or create it with this id
         * @description Needs scope `plants:write`. The plant with the id of the path becomes exactly the body: a member the body leaves out is removed (no `tag`: the plant has no tag afterwards). No plant with that id → it is created: 201 with `Location`, `ETag` and the whole plant, and `plant.created`; an existing plant → 200 with the whole plant and its `ETag`, and `plant.updated` only when something changed (a `PUT` of what the plant already is changes nothing, keeps its ETag and is not a change). Both are sent after the commit. `Content-Type` and the body's size and text rules are those of create (`application/json` → else 415; 16 KiB as sent → else 413; `Content-Encoding` → 415; valid UTF-8 → else 400). `If-None-Match: *` creates only (an existing plant → 412); `If-Match` replaces only, and only the plant with that ETag (`*`: any existing one); on a missing plant a precondition is a 412, never a 404. Concurrent `PUT`s of one id: every answer is a state the plant really had, and exactly one of them creates it. `PUT` is idempotent by itself: an `Idempotency-Key` is accepted and ignored. Order: authentication, then the request itself (400, 413, 415), then the preconditions (412).
         */
        put: operations["replacePlant"];
        post?: never;
        /**
         * Delete a plant
         * @description Needs scope `plants:write`. Of concurrent deletes of one plant exactly one gets 204, the others 404. With `If-Match`, only if the plant still has that ETag (else 412; one atomic step); an `If-None-Match` that matches → 412.
         */
        delete: operations["deletePlant"];
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, PUT, PATCH, DELETE, OPTIONS`.
         */
        options: operations["optionsPlant"];
        /**
         * Read one plant (headers only)
         * @description As `GET`, with the same status and headers and no body. Needs scope `plants:read`. With `If-None-Match` naming the current ETag (or `*`): 304 without a body, so a client can check a copy it has cheaply. With `If-Match` not naming it: 412.
         */
        head: operations["headPlant"];
        /**
         * Change a plant (JSON Merge Patch)
         * @description Needs scope `plants:write`. A JSON Merge Patch (RFC 7396): `name` replaces the name, `tag` replaces the tag and `null` removes it, an absent member keeps its value; `{}` changes nothing and answers 200 with the plant as it is. `Content-Type` must be `application/merge-patch+json` or `application/json` (a `charset=utf-8` parameter is fine), the other body rules are those of create (16 KiB as sent → else 413, `Content-Encoding` → 415, valid UTF-8 → else 400). Send `If-Match` with the ETag you read to change the plant only if nobody else has since (else 412): of two clients that patch with the same ETag exactly one gets 200. The 200 is sent after the commit. A patch that sets the values the plant already has keeps its ETag and sends no event; one that changes it gives a new ETag and sends `plant.updated`. Order: authentication, then the request itself (400, 413, 415), then existence (404), then the preconditions (412). Concurrent patches of one plant are serialised: every answer is a state the plant really had. To replace the whole plant (or create it), use `PUT`.
         */
        patch: operations["updatePlant"];
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, OPTIONS`.
         */
        options: operations["optionsOpenApiDocument"];
        /**
         * This document (headers only)
         * @description As `GET`, with the same status and headers and no body.
         */
        head: operations["headOpenApiDocument"];
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This reference, as a web page
         * @description Swagger UI rendering `/openapi.json`, served with its script, style sheet and icon (`/docs/init.js`, `/docs/swagger-ui-bundle.js`, `/docs/swagger-ui.css`, `/docs/favicon-32x32.png`) from this server alone: it works offline, and its `Content-Security-Policy` allows nothing from elsewhere.
         */
        get: operations["getDocs"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, OPTIONS`.
         */
        options: operations["optionsDocs"];
        /**
         * This reference, as a web page (headers only)
         * @description As `GET`, with the same status and headers and no body. Swagger UI rendering `/openapi.json`, served with its script, style sheet and icon (`/docs/init.js`, `/docs/swagger-ui-bundle.js`, `/docs/swagger-ui.css`, `/docs/favicon-32x32.png`) from this server alone: it works offline, and its `Content-Security-Policy` allows nothing from elsewhere.
         */
        head: operations["headDocs"];
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, OPTIONS`.
         */
        options: operations["optionsLiveness"];
        /**
         * Liveness: the process answers (headers only)
         * @description As `GET`, with the same status and headers and no body.
         */
        head: operations["headLiveness"];
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the store answers and the server is not shutting down */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        /**
         * The methods of this path
         * @description Answered before authentication and without looking at the request further: 204 with `Allow: GET, HEAD, OPTIONS`.
         */
        options: operations["optionsReadiness"];
        /**
         * Readiness: the store answers and the server is not shutting down (headers only)
         * @description As `GET`, with the same status and headers and no body.
         */
        head: operations["headReadiness"];
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "plant.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was created
         * @description Sent after a `POST /plants` that created a plant (a 201 that was not an idempotent replay) has committed. `data` is the plant as committed. One delivery per endpoint enabled and subscribed to `plant.created` when the change commits; endpoints added later get no earlier events. The body is UTF-8 JSON of at most 16 KiB, serialised once at the commit — compact, members in the order `type`, `timestamp`, `data` — and sent byte for byte on every attempt, to every endpoint, and on replays. Verify the signature over the raw body before parsing it.
         */
        post: operations["plantCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "plant.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was changed
         * @description Sent after a `PATCH /plants/{id}` that changed the plant (a 200 whose patch set at least one value the plant did not have) has committed. `data` is the plant after the change. One delivery per endpoint enabled and subscribed to `plant.updated` when the change commits; endpoints added later get no earlier events. The body is UTF-8 JSON of at most 16 KiB, serialised once at the commit — compact, members in the order `type`, `timestamp`, `data` — and sent byte for byte on every attempt, to every endpoint, and on replays. Verify the signature over the raw body before parsing it.
         */
        post: operations["plantUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "plant.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant was deleted
         * @description Sent after a `DELETE /plants/{id}` that answered 204 has committed. `data` holds only the id of the plant that is gone. One delivery per endpoint enabled and subscribed to `plant.deleted` when the change commits; endpoints added later get no earlier events. The body is UTF-8 JSON of at most 16 KiB, serialised once at the commit — compact, members in the order `type`, `timestamp`, `data` — and sent byte for byte on every attempt, to every endpoint, and on replays. Verify the signature over the raw body before parsing it.
         */
        post: operations["plantDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description A safe integer 1 … 2^53−1. */
        PlantId: number;
        /** @description The plant's name: 1–200 Unicode code points; at least one non-whitespace character (whitespace: U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF — so U+0085 is not whitespace); no control characters (U+0000–U+001F, U+007F); well-formed Unicode (no lone surrogates), which a pattern cannot say. Stored exactly as sent. */
        PlantName: string;
        /** @description A free-text label: 1–100 Unicode code points; at least one non-whitespace character (whitespace: U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF — so U+0085 is not whitespace); no control characters (U+0000–U+001F, U+007F); well-formed Unicode (no lone surrogates), which a pattern cannot say. Stored exactly as sent. */
        PlantTag: string;
        /** @description Text to find in plant names (the tag rules): 1–100 Unicode code points; at least one non-whitespace character (whitespace: U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF — so U+0085 is not whitespace); no control characters (U+0000–U+001F, U+007F); well-formed Unicode (no lone surrogates), which a pattern cannot say. Stored exactly as sent. */
        SearchText: string;
        /** @description Any other member → 400 naming it. When `id` is present and taken → 409. */
        CreatePlantRequest: {
            name: components["schemas"]["PlantName"];
            tag?: components["schemas"]["PlantTag"];
            id?: components["schemas"]["PlantId"];
        };
        /** @description A JSON Merge Patch (RFC 7396) of a plant: an absent member keeps its value, `tag: null` removes the tag. `id` (a plant keeps its id), any other member, or `"name": null` → 400 naming it. `{}` changes nothing. */
        UpdatePlantRequest: {
            name?: components["schemas"]["PlantName"];
            tag?: components["schemas"]["PlantTag"] | null;
        };
        /** @description The whole plant but its id (the path gives it): the plant becomes exactly this, so a member left out is removed (no `tag`: the plant has no tag). `id` (a plant keeps the id of its path), any other member, or `null` for a member (`"tag": null` too, as on create) → 400 naming it. */
        ReplacePlantRequest: {
            name: components["schemas"]["PlantName"];
            tag?: components["schemas"]["PlantTag"];
        };
        /** @description Name and tag, never the id. An absent tag is omitted (never null). */
        CreatePlantResponse: {
            name: components["schemas"]["PlantName"];
            tag?: components["schemas"]["PlantTag"];
        };
        /** @description An absent tag is omitted (never null). */
        Plant: {
            id: components["schemas"]["PlantId"];
            name: components["schemas"]["PlantName"];
            tag?: components["schemas"]["PlantTag"];
        };
        Error: {
            /**
             * Format: int32
             * @description The HTTP status.
             */
            error: number;
            /** @description For humans; free of stack traces, SQL and paths. */
            message: string;
        };
        Health: {
            /** @enum {string} */
            status: "ok";
        };
        /**
         * @description The commit time of the change: RFC 3339 in UTC with exactly three fractional digits and `Z`, as JavaScript's `Date#toISOString` writes it.
         * @example 2026-11-24T10:00:00.123Z
         */
        WebhookTimestamp: string;
        /** @description The payload of `plant.created`: the plant as committed (an absent tag is omitted). A newer server may add members; ignore those you do not know. */
        PlantCreatedEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "plant.created";
            timestamp: components["schemas"]["WebhookTimestamp"];
            data: components["schemas"]["Plant"];
        };
        /** @description The payload of `plant.updated`: the plant after the change (an absent tag is omitted). A newer server may add members; ignore those you do not know. */
        PlantUpdatedEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "plant.updated";
            timestamp: components["schemas"]["WebhookTimestamp"];
            data: components["schemas"]["Plant"];
        };
        /** @description The payload of `plant.deleted`: the id of the plant that is gone. A newer server may add members; ignore those you do not know. */
        PlantDeletedEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "plant.deleted";
            timestamp: components["schemas"]["WebhookTimestamp"];
            data: {
                id: components["schemas"]["PlantId"];
            };
        };
        /** @description Any webhook payload, told apart by `type`. */
        WebhookEvent: components["schemas"]["PlantCreatedEvent"] | components["schemas"]["PlantUpdatedEvent"] | components["schemas"]["PlantDeletedEvent"];
        /**
         * @description The same change has the same bytes wherever and whenever it is read, in the whole feed and in a feed of one tag; `plant.left` exists only in the latter.
         * @example {
         *       "seq": 42,
         *       "type": "plant.created",
         *       "timestamp": "2026-11-24T10:00:00.123Z",
         *       "data": {
         *         "id": 7,
         *         "name": "Monstera deliciosa",
         *         "tag": "tropical"
         *       },
         *       "etag": "\"1\""
         *     }
         */
        Change: {
            /** @description The change number. */
            seq: number;
            /**
             * @description `plant.left` only in a feed of one tag (`tag`): the plant left the subset, it was not deleted.
             * @enum {string}
             */
            type: "plant.created" | "plant.updated" | "plant.deleted" | "plant.left";
            /** @description The commit time, RFC 3339 in UTC with milliseconds. */
            timestamp: string;
            /** @description The plant after the change; for a delete or a `plant.left`, only its id. */
            data: components["schemas"]["Plant"] | {
                id: components["schemas"]["PlantId"];
            };
            /** @description The plant’s ETag after the change; absent for a delete and a `plant.left`. */
            etag?: string;
        };
        /** @description 1–1000 plants, each a `CreatePlantRequest`. The same `id` in two elements → 409 naming it; an id another plant has → 409 naming the ids taken. */
        CreatePlantsRequest: components["schemas"]["CreatePlantRequest"][];
    };
    responses: never;
    parameters: {
        /**
         * @description The event's id: `msg_` and 1–64 characters from `A–Z a–z 0–9`. Never reused; the same on every attempt of the event, at every endpoint, and on replays, so it is the key to drop duplicates by.
         * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
         */
        WebhookId: string;
        /**
         * @description When this attempt was sent, in integer Unix seconds. Every attempt has its own, and its own signature, so a receiver can refuse messages more than 5 minutes from its clock (replayed captures) and still accept late retries and replays.
         * @example 1795514401
         */
        WebhookTimestamp: string;
        /**
         * @description Standard Webhooks v1: a space-separated list of `v1,<signature>`, where `<signature>` is the base64 (standard alphabet, padded) of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` — the body exactly as received, byte for byte — keyed with the endpoint's secret decoded: the secret is `whsec_` followed by the base64 of 32 random bytes, and the key is those bytes. Computed for each attempt. Usually one signature; for 24 hours after `rotate-secret` two, the new secret's first and the previous one's second (in the first 5 seconds an attempt may still carry only the previous one's); never more than two. Accept the message when any `v1` signature equals one computed with a secret you hold (compare in constant time); ignore other versions. Example: with the secret `whsec_cGxhbnQtc3RvcmU6IGV4YW1wbGUgc2VjcmV0LCAzMkI=`, `webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W`, `webhook-timestamp: 1795514401` and the body `{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":42,"name":"Ficus lyrata","tag":"indoor"}}` the signature is `v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=`.
         * @example v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=
         */
        WebhookSignature: string;
        /**
         * @description `plant-store-webhooks/<version>`, the version of the server that sent the attempt.
         * @example plant-store-webhooks/1.0.0
         */
        WebhookUserAgent: string;
    };
    requestBodies: never;
    headers: {
        /** @description On every answer: browsers must not guess another media type. */
        "X-Content-Type-Options": "nosniff";
        /** @description On every answer of the API: nothing in it is a page to render, load from or frame. */
        "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'";
        /** @description On every answer under `/plants`: per-caller data, never stored by a cache. */
        "Cache-Control": "no-store";
        /**
         * @description The plant's strong entity tag (RFC 9110 §8.8.3), on a 201, on a `GET`/`HEAD` 200 or 304, and on a `PATCH` or `PUT` 200: the ETag of the plant as `GET /plants/{id}` shows it. Opaque: compare it, send it back in `If-Match` or `If-None-Match`, never parse it. It changes exactly when the plant's representation changes (a patch or a `PUT` that sets the values it already has keeps it), and a plant is never given an ETag it or an earlier plant with its id had.
         * @example "1k3"
         */
        ETag: string;
        /** @description Where this answer stands in the change log. On a read (a page, a plant, and the 304, 404 and 412 of `GET /plants/{id}`): the number of the newest change it includes, read in the same snapshot as the answer (0: no change yet). Read every page, then follow the changes from the first page's number, skipping for each plant the changes at or below the number of the page it came from: the copy is then exact. On a successful write: the number of the change it made (a create, a `PATCH` or `PUT` that changed the plant, a delete), or, for a write that changed nothing (a `PATCH` or `PUT` of the values the plant has), the newest number its snapshot saw; a replayed 201 carries the number of the original. Follow the feed from it (`GET /plants/changes?since=N`) to see what happened after your write. */
        "X-Change-Seq": number;
        /** @description Where this answer stands in the change log. On a read (a page, a plant, and the 304, 404 and 412 of `GET /plants/{id}`): the number of the newest change it includes, read in the same snapshot as the answer (0: no change yet). Read every page, then follow the changes from the first page's number, skipping for each plant the changes at or below the number of the page it came from: the copy is then exact. On a successful write: the number of the change it made (a create, a `PATCH` or `PUT` that changed the plant, a delete), or, for a write that changed nothing (a `PATCH` or `PUT` of the values the plant has), the newest number its snapshot saw; a replayed 201 carries the number of the original. Follow the feed from it (`GET /plants/changes?since=N`) to see what happened after your write. */
        "X-Change-Seq.required": number;
        /** @description The caller's `X-Request-Id` if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one. The server's log line for the request carries the same id. */
        "X-Request-Id": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPlants: {
        parameters: {
            query?: {
                /** @description Page size, decimal digits 1 … 1000. */
                limit?: number;
                /** @description With `sort=id` (the default), start after this id; with `sort=-id`, before it (smaller ids). 0 (or absent) starts at the first plant of the order (with `-id`, the newest). Decimal digits 0 … 9007199254740991. Not allowed with a name order (400). */
                after?: number;
                /** @description `id` (ascending, the default), `-id` (newest first), `name` or `-name`. Name order compares the folded names (`fold(s)`: Unicode NFKC, then ECMAScript's locale-independent lower case) code point by code point (UTF-8 byte order), ties broken by id in the same direction. Anything else → 400. */
                sort?: "id" | "-id" | "name" | "-name";
                /**
                 * @description Only plants whose folded name contains the folded text: `q=fern` finds "Boston Fern" and "FERNLEAF", `q=ﬀ` finds "Staff". `%`, `_` and `\` are ordinary characters. No collation, locale or database case rule takes part. Percent-encoded UTF-8; the tag rules apply (so an empty `q` → 400).
                 * @example fern
                 */
                q?: components["schemas"]["SearchText"];
                /** @description With `sort=name` or `-name`: where the page starts, as the previous page’s `Link` gives it. Opaque; valid only with the `sort`, `q` and `tag` it was made with. A malformed cursor, one made for another query, or `cursor` with an id order → 400. Absent: the first page. */
                cursor?: string;
                /**
                 * @description Only plants whose tag equals this exactly, code point for code point (no case folding or normalisation); plants without a tag never match. Percent-encoded UTF-8; the tag rules apply.
                 * @example indoor
                 */
                tag?: components["schemas"]["PlantTag"];
            };
            header?: {
                /**
                 * @description RFC 7240. `count=exact` (alone or among other preferences) asks for `X-Total-Count`; every other preference, and any other value, is ignored.
                 * @example count=exact
                 */
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of plants. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq"];
                    /** @description RFC 8288 link to the next page, present only when this page is full. It carries `limit` always; `after` (id orders) or `cursor` (name orders); `sort` unless `id`; and `tag` and `q` when given, encoded as `URLSearchParams` writes it. */
                    Link?: string;
                    /** @description Only with `Prefer: count=exact`: how many plants match `q` and `tag` in the whole store, whatever the page. */
                    "X-Total-Count"?: number;
                    /** @description Only with `Prefer: count=exact`: `count=exact` (RFC 7240). */
                    "Preference-Applied"?: "count=exact";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": 1,
                     *         "name": "Monstera deliciosa",
                     *         "tag": "tropical"
                     *       },
                     *       {
                     *         "id": 2,
                     *         "name": "Ficus lyrata"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Plant"][];
                };
            };
            /** @description Invalid `limit`, `after`, `sort`, `q`, `cursor` or `tag`, `after` with a name order, `cursor` with an id order, a cursor made for another query, a parameter without `=`, invalid percent-encoding or UTF-8, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "limit: expected an integer from 1 to 1000, got a string \"0\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the create safe to retry (draft-ietf-httpapi-idempotency-key-header). One field line: 1–255 characters from `A–Z a–z 0–9 . _ : ~ + / = -`, bare or as an RFC 8941 string (`k` and `"k"` are one key; the 255 count what is inside the quotes). The draft allows any printable ASCII inside the quotes; this narrower set is deliberate. Anything else (a space, an escape, parameters, a list, an empty value, a second line) → 400 naming the header, checked after the 415s and before the 413. A key belongs to the principal that sent it (an operator token's id, or the JWT's `iss` + `sub`): another principal's equal key is another key, so a retry must use the same token. The outcome of a create with a new key — 201, or 409 for a taken id — is saved with the key in the transaction of the plant, and kept for 86400 seconds from its commit (`IDEMPOTENCY_TTL_SECONDS`, by the store's clock); after that the key is new again. Other outcomes (400, 401, 403, 413, 415, 429, 5xx) save nothing. The same key with the same request (equal JSON values: member order, whitespace, escapes and number spelling do not count; neither do the query string and other headers) → the saved status, `Location` and body again with `Idempotent-Replayed: true`; nothing changes, even if the plant has since been deleted. The same key with a different request → 422 (the saved outcome stays). While a request with the key is being processed by this server process → 409 with `Retry-After: 1`, never saved; on PostgreSQL, a request with the key on another instance or worker waits for the first one's commit instead and then gets its saved outcome (a replay, or 422). A replay counts as a request for rate limits.
                 * @example 5f0c6c1e-3b1a-4be4-9f5c-2a6f1f0a9d3e
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreatePlantRequest"];
            };
        };
        responses: {
            /** @description Created, after the commit. The body is name and tag only; the id travels in `Location`. */
            201: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/plants/{id}` of the new plant. */
                    Location: string;
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq"];
                    /** @description `true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise). */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Monstera deliciosa",
                     *       "tag": "tropical"
                     *     }
                     */
                    "application/json": components["schemas"]["CreatePlantResponse"];
                };
            };
            /** @description Invalid body (the message names every failing field), a malformed `Idempotency-Key`, or a malformed bearer credential (`WWW-Authenticate: … error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name: expected 1–200 characters, got 0"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The id is taken; nothing was changed (with an `Idempotency-Key`, saved and replayed with `Idempotent-Replayed: true`). Or, with `Retry-After: 1`: a request with the same `Idempotency-Key` is still being processed; nothing was done or saved, retry. */
            409: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Only on the in-flight answer: retry the same request with the same key after this many seconds. */
                    "Retry-After"?: 1;
                    /** @description `true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise). */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 409,
                     *       "message": "a plant with id 42 already exists"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than the limit. */
            413: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "request body larger than 16384 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not `application/json`, or a compressed body. */
            415: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "expected Content-Type application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was already used, within its time to live, with a different request. The saved outcome stays; send a new key for a new request. */
            422: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 422,
                     *       "message": "Idempotency-Key \"order-17\" was already used with a different request; send a new key for a new request"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsPlants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, POST, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headPlants: {
        parameters: {
            query?: {
                /** @description Page size, decimal digits 1 … 1000. */
                limit?: number;
                /** @description With `sort=id` (the default), start after this id; with `sort=-id`, before it (smaller ids). 0 (or absent) starts at the first plant of the order (with `-id`, the newest). Decimal digits 0 … 9007199254740991. Not allowed with a name order (400). */
                after?: number;
                /** @description `id` (ascending, the default), `-id` (newest first), `name` or `-name`. Name order compares the folded names (`fold(s)`: Unicode NFKC, then ECMAScript's locale-independent lower case) code point by code point (UTF-8 byte order), ties broken by id in the same direction. Anything else → 400. */
                sort?: "id" | "-id" | "name" | "-name";
                /**
                 * @description Only plants whose folded name contains the folded text: `q=fern` finds "Boston Fern" and "FERNLEAF", `q=ﬀ` finds "Staff". `%`, `_` and `\` are ordinary characters. No collation, locale or database case rule takes part. Percent-encoded UTF-8; the tag rules apply (so an empty `q` → 400).
                 * @example fern
                 */
                q?: components["schemas"]["SearchText"];
                /** @description With `sort=name` or `-name`: where the page starts, as the previous page’s `Link` gives it. Opaque; valid only with the `sort`, `q` and `tag` it was made with. A malformed cursor, one made for another query, or `cursor` with an id order → 400. Absent: the first page. */
                cursor?: string;
                /**
                 * @description Only plants whose tag equals this exactly, code point for code point (no case folding or normalisation); plants without a tag never match. Percent-encoded UTF-8; the tag rules apply.
                 * @example indoor
                 */
                tag?: components["schemas"]["PlantTag"];
            };
            header?: {
                /**
                 * @description RFC 7240. `count=exact` (alone or among other preferences) asks for `X-Total-Count`; every other preference, and any other value, is ignored.
                 * @example count=exact
                 */
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of plants. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq"];
                    /** @description RFC 8288 link to the next page, present only when this page is full. It carries `limit` always; `after` (id orders) or `cursor` (name orders); `sort` unless `id`; and `tag` and `q` when given, encoded as `URLSearchParams` writes it. */
                    Link?: string;
                    /** @description Only with `Prefer: count=exact`: how many plants match `q` and `tag` in the whole store, whatever the page. */
                    "X-Total-Count"?: number;
                    /** @description Only with `Prefer: count=exact`: `count=exact` (RFC 7240). */
                    "Preference-Applied"?: "count=exact";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid `limit`, `after`, `sort`, `q`, `cursor` or `tag`, `after` with a name order, `cursor` with an id order, a cursor made for another query, a parameter without `=`, invalid percent-encoding or UTF-8, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listChanges: {
        parameters: {
            query?: {
                /**
                 * @description The changes numbered above this one (decimal digits, no sign or leading zero). Above the newest number → 400; if a change above it is older than `CHANGES_RETENTION` → 410. 0: from the oldest change kept.
                 * @example 41
                 */
                since?: number;
                /**
                 * @description Only the changes of plants that have this tag before or after the change (exactly, code point for code point), a plant that leaves it as `plant.left`. Form-urlencoded, as for `GET /plants`.
                 * @example tropical
                 */
                tag?: components["schemas"]["PlantTag"];
                /** @description JSON pages only: at most this many changes, decimal digits 1 … 1000. */
                limit?: number;
                /** @description JSON pages only: when no change is there yet, wait up to this many seconds (1 … 30) for one, then answer (an empty page when none came). */
                wait?: number;
            };
            header?: {
                /** @description As `since`, and wins over it: what an event stream client sends when it reconnects. */
                "Last-Event-ID"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changes, as the `Accept` asked. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description JSON pages only, always: the next page, `since` the last change’s number (or this page’s `since` when it is empty), `tag` when one was asked, and the `limit` used. With `tag`, `since` is the last change’s number when the page is full, else the newest change number the answer saw: a page may be empty and still move. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "seq": 42,
                     *         "type": "plant.created",
                     *         "timestamp": "2026-11-24T10:00:00.123Z",
                     *         "data": {
                     *           "id": 7,
                     *           "name": "Monstera deliciosa",
                     *           "tag": "tropical"
                     *         },
                     *         "etag": "\"1\""
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Change"][];
                    "text/event-stream": string;
                };
            };
            /** @description Invalid `since`, `Last-Event-ID`, `tag`, `limit` or `wait`, a number above the newest change’s, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "since: 57 is above the newest change number, 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Accept` names neither `application/json` nor `text/event-stream`. */
            406: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 406,
                     *       "message": "GET /plants/changes answers application/json or text/event-stream"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A change numbered above `since` (of any tag) is older than `CHANGES_RETENTION`: the changes from there have expired. Read the plants again, then follow from the `X-Change-Seq` of the first page. With `tag`, also when `since` is older than what the log knows of the tags changes took plants away from. */
            410: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 410,
                     *       "message": "the changes after 41 have expired (CHANGES_RETENTION): read the plants again, then follow from the X-Change-Seq of the first page"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsChanges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headChanges: {
        parameters: {
            query?: {
                /**
                 * @description The changes numbered above this one (decimal digits, no sign or leading zero). Above the newest number → 400; if a change above it is older than `CHANGES_RETENTION` → 410. 0: from the oldest change kept.
                 * @example 41
                 */
                since?: number;
                /**
                 * @description Only the changes of plants that have this tag before or after the change (exactly, code point for code point), a plant that leaves it as `plant.left`. Form-urlencoded, as for `GET /plants`.
                 * @example tropical
                 */
                tag?: components["schemas"]["PlantTag"];
                /** @description JSON pages only: at most this many changes, decimal digits 1 … 1000. */
                limit?: number;
                /** @description JSON pages only: when no change is there yet, wait up to this many seconds (1 … 30) for one, then answer (an empty page when none came). */
                wait?: number;
            };
            header?: {
                /** @description As `since`, and wins over it: what an event stream client sends when it reconnects. */
                "Last-Event-ID"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changes, as the `Accept` asked. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description JSON pages only, always: the next page, `since` the last change’s number (or this page’s `since` when it is empty), `tag` when one was asked, and the `limit` used. With `tag`, `since` is the last change’s number when the page is full, else the newest change number the answer saw: a page may be empty and still move. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid `since`, `Last-Event-ID`, `tag`, `limit` or `wait`, a number above the newest change’s, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The `Accept` names neither `application/json` nor `text/event-stream`. */
            406: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A change numbered above `since` (of any tag) is older than `CHANGES_RETENTION`: the changes from there have expired. Read the plants again, then follow from the `X-Change-Seq` of the first page. With `tag`, also when `since` is older than what the log knows of the tags changes took plants away from. */
            410: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    createPlants: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the whole array safe to retry, with the syntax and the rules of the key of `POST /plants` (1–255 characters from `A–Z a–z 0–9 . _ : ~ + / = -`, bare or as an RFC 8941 string; owned by the principal that sent it). The outcome of an array that reached the store — the 201 with its body and its `X-Change-Seq`, or a 409 for ids already taken — is saved with the key in the transaction of the plants, and kept for 86400 seconds from its commit (`IDEMPOTENCY_TTL_SECONDS`). The same key with an equal array (equal JSON values, element for element, in the same order) → the saved status and body again with `Idempotent-Replayed: true` and the original `X-Change-Seq`; nothing changes. The same key with an array that differs in any element or in their order, or a key used on `POST /plants`, → 422. Other outcomes (400, a 409 for an id given twice, 401, 403, 413, 415, 429, 5xx) save nothing. One key space for both routes: while a request with the key is being processed by this server process → 409 with `Retry-After: 1`.
                 * @example import:8f14e45fceea167a:0
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "name": "Monstera deliciosa",
                 *         "tag": "tropical"
                 *       },
                 *       {
                 *         "id": 42,
                 *         "name": "Ficus lyrata"
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["CreatePlantsRequest"];
            };
        };
        responses: {
            /** @description Created, after the commit: every plant of the array, with its id, in request order. No `Location` and no `ETag` (a `GET` of a plant gives its ETag). */
            201: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The number of the newest of the array's changes in the change log (each plant has its own change, all in one commit): follow `GET /plants/changes?since=` from below it to see them. On a replay, the number the original answer had. */
                    "X-Change-Seq": number;
                    /** @description `true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise). */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": 41,
                     *         "name": "Monstera deliciosa",
                     *         "tag": "tropical"
                     *       },
                     *       {
                     *         "id": 42,
                     *         "name": "Ficus lyrata"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["Plant"][];
                };
            };
            /** @description Not a JSON array, an empty one, more than 1000 elements, or an invalid element: the message names the first invalid element in array order, counted from 0, and its failing fields (`[3].name: …`). Or a malformed `Idempotency-Key`, or a malformed bearer credential (`error="invalid_request"`). Nothing was created. */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "[3].name: expected 1–200 characters, got 0"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id given twice in the array (the message names it; decided before the store, never saved with a key), or ids other plants already have (the message names them; with an `Idempotency-Key`, saved and replayed with `Idempotent-Replayed: true`). Nothing was created. Or, with `Retry-After: 1`: a request with the same `Idempotency-Key` is still being processed; nothing was done or saved, retry. */
            409: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Only on the in-flight answer: retry the same request with the same key after this many seconds. */
                    "Retry-After"?: 1;
                    /** @description `true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise). */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 409,
                     *       "message": "plants with ids 42, 43 already exist; nothing was created"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than `BULK_BODY_LIMIT_BYTES` (4 MiB by default). */
            413: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "request body larger than 4194304 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not `application/json`, or a compressed body. */
            415: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "expected Content-Type application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was already used, within its time to live, with a different array (any element or their order), or on `POST /plants`. The saved outcome stays; send a new key for a new request. */
            422: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 422,
                     *       "message": "Idempotency-Key \"import-17\" was already used with a different request; send a new key for a new request"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsPlantsBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "POST, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes (on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only). The comparison and the write are one atomic step, across instances. A malformed value → 400.
                 * @example "1k3"
                 */
                "If-Match"?: string;
                /**
                 * @description RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE` (`If-None-Match: *` makes a `PUT` create only). Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.
                 * @example "1k3"
                 */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant, with its `ETag`. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 42,
                     *       "name": "Ficus lyrata",
                     *       "tag": "indoor"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description Not modified: `If-None-Match` names the plant's current ETag (or is `*`). No body; the `ETag` again. */
            304: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string \"07\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such plant (`X-Change-Seq`: the snapshot that did not have it). */
            404: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A precondition failed: `If-Match` names no current ETag of the plant, or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404. */
            412: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 42 has changed: If-Match does not name its current ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replacePlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes (on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only). The comparison and the write are one atomic step, across instances. A malformed value → 400.
                 * @example "1k3"
                 */
                "If-Match"?: string;
                /**
                 * @description RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE` (`If-None-Match: *` makes a `PUT` create only). Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.
                 * @example "1k3"
                 */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplacePlantRequest"];
            };
        };
        responses: {
            /** @description Replaced (or already so): the whole plant, with its `ETag`. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 42,
                     *       "name": "Ficus lyrata",
                     *       "tag": "living room"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description Created with the id of the path: the whole plant, with its `Location` and `ETag`. */
            201: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description `/plants/{id}`: the path of the request. */
                    Location: string;
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 42,
                     *       "name": "Ficus lyrata"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description An invalid id, body (the message names every failing member: `id`, an unknown member, a `null`, a missing `name`, a name or tag breaking the rules), `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "tag: expected a string, got null"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A precondition failed: `If-Match` on a missing plant, or naming no current ETag of the plant; `If-None-Match` matching the plant (`*`: it exists). Nothing was changed. Checked after 400. */
            412: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "no plant with id 42: If-Match needs an existing plant"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than the limit. */
            413: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "request body larger than 16384 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not `application/json`, or a compressed body. */
            415: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "expected Content-Type application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes (on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only). The comparison and the write are one atomic step, across instances. A malformed value → 400.
                 * @example "1k3"
                 */
                "If-Match"?: string;
                /**
                 * @description RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE` (`If-None-Match: *` makes a `PUT` create only). Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.
                 * @example "1k3"
                 */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted, after the commit. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string \"-1\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such plant. */
            404: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A precondition failed: `If-Match` names no current ETag of the plant, or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404. */
            412: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 42 has changed: If-Match does not name its current ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsPlant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Any path segment: `OPTIONS` does not read the id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, PUT, PATCH, DELETE, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes (on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only). The comparison and the write are one atomic step, across instances. A malformed value → 400.
                 * @example "1k3"
                 */
                "If-Match"?: string;
                /**
                 * @description RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE` (`If-None-Match: *` makes a `PUT` create only). Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.
                 * @example "1k3"
                 */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant, with its `ETag`. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not modified: `If-None-Match` names the plant's current ETag (or is `*`). No body; the `ETag` again. */
            304: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No such plant (`X-Change-Seq`: the snapshot that did not have it). */
            404: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A precondition failed: `If-Match` names no current ETag of the plant, or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404. */
            412: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    updatePlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes (on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only). The comparison and the write are one atomic step, across instances. A malformed value → 400.
                 * @example "1k3"
                 */
                "If-Match"?: string;
                /**
                 * @description RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE` (`If-None-Match: *` makes a `PUT` create only). Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.
                 * @example "1k3"
                 */
                "If-None-Match"?: string;
            };
            path: {
                /**
                 * @description The plant's id, an integer 1 … 9007199254740991 (2^53−1), written in the path as decimal digits with no sign and no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.
                 * @example 7
                 */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/merge-patch+json": components["schemas"]["UpdatePlantRequest"];
                "application/json": components["schemas"]["UpdatePlantRequest"];
            };
        };
        responses: {
            /** @description The plant after the change (or as it is, when nothing changed), with its `ETag`. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Change-Seq": components["headers"]["X-Change-Seq.required"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 42,
                     *       "name": "Ficus lyrata",
                     *       "tag": "living room"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description An invalid id, body (the message names every failing member: `id`, an unknown member, `"name": null`, a name or tag breaking the rules), `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`). */
            400: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id: cannot be changed: a plant keeps its id (the one in the path)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No credentials, another scheme, or an unknown, expired or revoked token. */
            401: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "missing bearer token"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token lacks the scope this operation needs. */
            403: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403). */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "this operation needs the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such plant. */
            404: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "no plant with id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A precondition failed: `If-Match` names no current ETag of the plant, or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404. */
            412: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "plant 42 has changed: If-Match does not name its current ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than the limit. */
            413: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "request body larger than 16384 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not `application/merge-patch+json` or `application/json`, or a compressed body. */
            415: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "expected Content-Type application/merge-patch+json or application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`. */
            429: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Whole seconds until the window ends and the quota is whole again. */
                    "Retry-After": number;
                    /** @description The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope. */
                    "RateLimit-Policy"?: string;
                    /** @description What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached. */
                    RateLimit?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "rate limit of 10 requests per second exceeded; retry after 2 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected failure; details are only in the server log. */
            500: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1). */
            501: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 501,
                     *       "message": "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with chunked alone or with Content-Length"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store is unreachable (a restart, a network fault, a failover to a standby under way), or the server is shutting down. Try again after `Retry-After`; a create sent again with its `Idempotency-Key` is applied once, whether or not the first one was. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description Seconds to wait before trying again (always 1). */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "the store is unavailable; try again"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    /** @description Scripts, styles, images and fetches from this origin only; never framed. */
                    "Content-Security-Policy": string;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    /** @description Scripts, styles, images and fetches from this origin only; never framed. */
                    "Content-Security-Policy": string;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 405,
                     *       "message": "method PUT is not allowed on /plants; allowed: GET, POST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store does not answer, or the server is shutting down. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "not ready: shutting down"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    optionsReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The methods this path has, in `Allow`. No body. */
            204: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods of this path. */
                    Allow: "GET, HEAD, OPTIONS";
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    headReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The route exists but not with this method (answered before authentication). */
            405: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    /** @description The methods the route has. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The store does not answer, or the server is shutting down. */
            503: {
                headers: {
                    "X-Content-Type-Options": components["headers"]["X-Content-Type-Options"];
                    "Content-Security-Policy": components["headers"]["Content-Security-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id: `msg_` and 1–64 characters from `A–Z a–z 0–9`. Never reused; the same on every attempt of the event, at every endpoint, and on replays, so it is the key to drop duplicates by.
                 * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description When this attempt was sent, in integer Unix seconds. Every attempt has its own, and its own signature, so a receiver can refuse messages more than 5 minutes from its clock (replayed captures) and still accept late retries and replays.
                 * @example 1795514401
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Standard Webhooks v1: a space-separated list of `v1,<signature>`, where `<signature>` is the base64 (standard alphabet, padded) of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` — the body exactly as received, byte for byte — keyed with the endpoint's secret decoded: the secret is `whsec_` followed by the base64 of 32 random bytes, and the key is those bytes. Computed for each attempt. Usually one signature; for 24 hours after `rotate-secret` two, the new secret's first and the previous one's second (in the first 5 seconds an attempt may still carry only the previous one's); never more than two. Accept the message when any `v1` signature equals one computed with a secret you hold (compare in constant time); ignore other versions. Example: with the secret `whsec_cGxhbnQtc3RvcmU6IGV4YW1wbGUgc2VjcmV0LCAzMkI=`, `webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W`, `webhook-timestamp: 1795514401` and the body `{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":42,"name":"Ficus lyrata","tag":"indoor"}}` the signature is `v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=`.
                 * @example v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
                /**
                 * @description `plant-store-webhooks/<version>`, the version of the server that sent the attempt.
                 * @example plant-store-webhooks/1.0.0
                 */
                "User-Agent": components["parameters"]["WebhookUserAgent"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "plant.created",
                 *       "timestamp": "2026-11-24T10:00:00.123Z",
                 *       "data": {
                 *         "id": 42,
                 *         "name": "Ficus lyrata",
                 *         "tag": "indoor"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PlantCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: disables the endpoint. This delivery and every pending one of the endpoint become `failed` (reason: disabled), and no deliveries are created for it until the operator runs `plant-store-webhooks enable <id>`. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Delivered: any 2xx whose status line and headers arrive within `WEBHOOK_TIMEOUT_MS` (default 15 s, counted from the start of DNS and connect). The response body is read up to 64 KiB and ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else is a failed attempt and is retried: a 1xx or 3xx (redirects are not followed), a 4xx other than 410, a 5xx, no answer in time, a connection or TLS error. After the n-th failed attempt the next comes after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each times a random factor in [0.8, 1.2]; the operator may set another schedule): 8 attempts over about 28 hours, then the delivery is `failed` until replayed. A `Retry-After` on a 429 or 503 replaces that step's delay when it is longer (capped at 24 hours). */
            default: {
                headers: {
                    /** @description On a 429 or 503 only: delay-seconds or an HTTP-date, honoured up to 24 hours when longer than the scheduled delay. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id: `msg_` and 1–64 characters from `A–Z a–z 0–9`. Never reused; the same on every attempt of the event, at every endpoint, and on replays, so it is the key to drop duplicates by.
                 * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description When this attempt was sent, in integer Unix seconds. Every attempt has its own, and its own signature, so a receiver can refuse messages more than 5 minutes from its clock (replayed captures) and still accept late retries and replays.
                 * @example 1795514401
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Standard Webhooks v1: a space-separated list of `v1,<signature>`, where `<signature>` is the base64 (standard alphabet, padded) of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` — the body exactly as received, byte for byte — keyed with the endpoint's secret decoded: the secret is `whsec_` followed by the base64 of 32 random bytes, and the key is those bytes. Computed for each attempt. Usually one signature; for 24 hours after `rotate-secret` two, the new secret's first and the previous one's second (in the first 5 seconds an attempt may still carry only the previous one's); never more than two. Accept the message when any `v1` signature equals one computed with a secret you hold (compare in constant time); ignore other versions. Example: with the secret `whsec_cGxhbnQtc3RvcmU6IGV4YW1wbGUgc2VjcmV0LCAzMkI=`, `webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W`, `webhook-timestamp: 1795514401` and the body `{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":42,"name":"Ficus lyrata","tag":"indoor"}}` the signature is `v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=`.
                 * @example v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
                /**
                 * @description `plant-store-webhooks/<version>`, the version of the server that sent the attempt.
                 * @example plant-store-webhooks/1.0.0
                 */
                "User-Agent": components["parameters"]["WebhookUserAgent"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "plant.updated",
                 *       "timestamp": "2026-11-24T10:02:00.000Z",
                 *       "data": {
                 *         "id": 42,
                 *         "name": "Ficus lyrata",
                 *         "tag": "living room"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PlantUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: disables the endpoint. This delivery and every pending one of the endpoint become `failed` (reason: disabled), and no deliveries are created for it until the operator runs `plant-store-webhooks enable <id>`. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Delivered: any 2xx whose status line and headers arrive within `WEBHOOK_TIMEOUT_MS` (default 15 s, counted from the start of DNS and connect). The response body is read up to 64 KiB and ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else is a failed attempt and is retried: a 1xx or 3xx (redirects are not followed), a 4xx other than 410, a 5xx, no answer in time, a connection or TLS error. After the n-th failed attempt the next comes after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each times a random factor in [0.8, 1.2]; the operator may set another schedule): 8 attempts over about 28 hours, then the delivery is `failed` until replayed. A `Retry-After` on a 429 or 503 replaces that step's delay when it is longer (capped at 24 hours). */
            default: {
                headers: {
                    /** @description On a 429 or 503 only: delay-seconds or an HTTP-date, honoured up to 24 hours when longer than the scheduled delay. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id: `msg_` and 1–64 characters from `A–Z a–z 0–9`. Never reused; the same on every attempt of the event, at every endpoint, and on replays, so it is the key to drop duplicates by.
                 * @example msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description When this attempt was sent, in integer Unix seconds. Every attempt has its own, and its own signature, so a receiver can refuse messages more than 5 minutes from its clock (replayed captures) and still accept late retries and replays.
                 * @example 1795514401
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description Standard Webhooks v1: a space-separated list of `v1,<signature>`, where `<signature>` is the base64 (standard alphabet, padded) of the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` — the body exactly as received, byte for byte — keyed with the endpoint's secret decoded: the secret is `whsec_` followed by the base64 of 32 random bytes, and the key is those bytes. Computed for each attempt. Usually one signature; for 24 hours after `rotate-secret` two, the new secret's first and the previous one's second (in the first 5 seconds an attempt may still carry only the previous one's); never more than two. Accept the message when any `v1` signature equals one computed with a secret you hold (compare in constant time); ignore other versions. Example: with the secret `whsec_cGxhbnQtc3RvcmU6IGV4YW1wbGUgc2VjcmV0LCAzMkI=`, `webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W`, `webhook-timestamp: 1795514401` and the body `{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":42,"name":"Ficus lyrata","tag":"indoor"}}` the signature is `v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=`.
                 * @example v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
                /**
                 * @description `plant-store-webhooks/<version>`, the version of the server that sent the attempt.
                 * @example plant-store-webhooks/1.0.0
                 */
                "User-Agent": components["parameters"]["WebhookUserAgent"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "plant.deleted",
                 *       "timestamp": "2026-11-24T10:05:00.000Z",
                 *       "data": {
                 *         "id": 42
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PlantDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: disables the endpoint. This delivery and every pending one of the endpoint become `failed` (reason: disabled), and no deliveries are created for it until the operator runs `plant-store-webhooks enable <id>`. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Delivered: any 2xx whose status line and headers arrive within `WEBHOOK_TIMEOUT_MS` (default 15 s, counted from the start of DNS and connect). The response body is read up to 64 KiB and ignored. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else is a failed attempt and is retried: a 1xx or 3xx (redirects are not followed), a 4xx other than 410, a 5xx, no answer in time, a connection or TLS error. After the n-th failed attempt the next comes after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each times a random factor in [0.8, 1.2]; the operator may set another schedule): 8 attempts over about 28 hours, then the delivery is `failed` until replayed. A `Retry-After` on a 429 or 503 replaces that step's delay when it is longer (capped at 24 hours). */
            default: {
                headers: {
                    /** @description On a 429 or 503 only: delay-seconds or an HTTP-date, honoured up to 24 hours when longer than the scheduled delay. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

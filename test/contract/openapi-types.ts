export interface paths {
    "/risk_api/score/": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Score an IP (metered)
         * @description The overall risk score of an IP, its eight dimensions with their explanation, the community signal and the workspace's own memory of it. Each successful call counts once against the daily score quota (RateLimit-* headers); a refused call counts nothing. Needs a tier that includes score.
         */
        post: operations["score"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/risk_api/dimensions/": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Raw dimensional read of an IP (unmetered)
         * @description The IP's report hierarchy and, per dimension, the entity with its published summary and the workspace's own layer, without the score wrapper. Never counted, but needs a tier that includes score (its per-dimension scores rebuild the score).
         */
        post: operations["dimensions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/risk_api/rate/": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record quick feedback about an IP (free)
         * @description A good (1), neutral (0) or bad (-1) rating of an IP, with an optional note. Never counted.
         */
        post: operations["rate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/risk_api/report/": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record a typed outcome event about a subject (free)
         * @description An outcome (fraud, chargeback, spam, legitimate, ...) about a subject of any kind, with related subjects and their roles, under a share policy and a visibility. Keys are normalised by kind. Never counted.
         */
        post: operations["report"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/risk_api/export/": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Export the workspace's reports (filters in the query)
         * @description The workspace's reports with the GraphQL `reports(filter)` filters, newest first, streamed as NDJSON (one record per line, each as the ExportRecord schema) or CSV (the same columns flattened; tags joined by ";", related_subjects as JSON). At most 100000 reports per answer; when more match, X-Next-Cursor (and for GET a Link rel="next") continues after the last one sent. Unmetered.
         */
        get: operations["exportReports"];
        put?: never;
        /**
         * Export the workspace's reports (filters in a JSON body)
         * @description The workspace's reports with the GraphQL `reports(filter)` filters, newest first, streamed as NDJSON (one record per line, each as the ExportRecord schema) or CSV (the same columns flattened; tags joined by ";", related_subjects as JSON). At most 100000 reports per answer; when more match, X-Next-Cursor (and for GET a Link rel="next") continues after the last one sent. Unmetered.
         */
        post: operations["exportReportsPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/risk_api/openapi.json": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1 document, with this server's BASE_URL as its server.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description The process answers. Any method; never authenticated.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description Every dependency (database, counter store) answered a ping and the server is not shutting down. Any method; never authenticated.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Prometheus text exposition: request durations by route and status, score calls and refusals, publication, feeds, outbox, counter-store and database latency, event-loop delay, process metrics. Open to loopback clients by default; when METRICS_TOKEN is set, scrapes must send it as `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md).
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            /** @constant */
            ok: false;
            /**
             * @description Stable machine-readable code (docs/api.md, status codes and errors).
             * @enum {string}
             */
            error: "missing_api_key" | "invalid_api_key" | "conflicting_api_keys" | "api_key_not_accepted" | "unauthenticated" | "invalid_json" | "invalid_request" | "query_too_complex" | "invalid_signature" | "unsupported_media_type" | "payload_too_large" | "method_not_allowed" | "not_acceptable" | "not_found" | "tier_not_eligible" | "email_unverified" | "origin_not_allowed" | "csrf_token_invalid" | "idempotency_key_reused" | "rate_limited" | "quota_exceeded" | "idempotency_in_progress" | "service_unavailable" | "query_timeout" | "response_too_large" | "quota_unavailable" | "database_unavailable" | "internal_error";
            /** @description What went wrong and what to do, in English. */
            message: string;
            /** @description Validation errors: one entry per offending field, named as on the wire (e.g. related_subjects[2].key). */
            details?: {
                field: string;
                message: string;
            }[];
            /** @description internal_error and database_unavailable: the X-Request-Id to quote. */
            request_id?: string;
            /** @description quota_exceeded: the daily quota and when it resets (00:00 UTC). */
            quota?: {
                daily_limit: number;
                used_today: number;
                remaining: number;
                over_limit: boolean;
                /** Format: date-time */
                resets_at: string;
            };
            /** @description rate_limited: the per-key burst limit that was exceeded. */
            burst?: {
                limit: number;
                window_s: number;
            };
        };
        IpRequest: {
            /** @description IPv4 or IPv6 address to look up (IPv4-mapped IPv6 is read as the IPv4 address). */
            ip: string;
        };
        RateRequest: {
            /** @description IPv4 or IPv6 address being rated; stored in canonical form. */
            ip: string;
            /**
             * @description 1 = good, 0 = neutral, -1 = bad.
             * @enum {integer}
             */
            rating: 1 | 0 | -1;
            /**
             * @description Free-text comment (default empty).
             * @default
             */
            note: string | null;
        };
        ReportRequest: {
            /**
             * @description ipaddress: An IPv4 or IPv6 address, stored in canonical form (RFC 5952 for IPv6; IPv4-mapped IPv6 becomes IPv4).
             *     cidr: An IP network in CIDR notation (a.b.c.d/n or IPv6/n), host bits zeroed.
             *     asn: An autonomous system number, stored as its decimal number ("AS13335" becomes "13335").
             *     domain: A DNS domain name: lower-case ASCII, internationalised names in punycode (xn--), no trailing dot.
             *     url: An http or https URL: host normalised, default port and fragment dropped, path and query kept.
             *     email: An email address: local part kept as given (it is case-sensitive), domain normalised.
             *     phone: A phone number in E.164 form: + then 8 to 15 digits.
             *     organization: An organisation name: Unicode NFC, whitespace collapsed, lower-cased.
             *     transaction: An opaque transaction id from the caller's systems (case preserved).
             *     account: An opaque account id from the caller's systems (case preserved).
             * @enum {string}
             */
            kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
            /** @description The identifier itself, normalised by kind. */
            key: string;
            /**
             * @description Short headline.
             * @default
             */
            title: string | null;
            /**
             * @description One-line summary.
             * @default
             */
            summary: string | null;
            /**
             * @description Longer free text.
             * @default
             */
            details: string | null;
            /**
             * @description Outcome classification.
             * @enum {string}
             */
            outcome_code: "fraud_confirmed" | "chargeback" | "account_takeover" | "credential_stuffing" | "fraud_watch" | "spam" | "scraping" | "bot_activity" | "abuse_other" | "legitimate" | "false_positive";
            /**
             * @description Severity (default medium).
             * @default medium
             */
            severity: ("info" | "low" | "medium" | "high" | "critical") | null;
            /**
             * @description Up to 20 tags of 1-40 characters (a-z, 0-9, ":", "_", ".", "-"), lower-cased; duplicates removed.
             * @default []
             */
            tags: string[] | null;
            /** @description Up to 50 other subjects linked to this report, each with its role. */
            related_subjects?: {
                /**
                 * @description ipaddress: An IPv4 or IPv6 address, stored in canonical form (RFC 5952 for IPv6; IPv4-mapped IPv6 becomes IPv4).
                 *     cidr: An IP network in CIDR notation (a.b.c.d/n or IPv6/n), host bits zeroed.
                 *     asn: An autonomous system number, stored as its decimal number ("AS13335" becomes "13335").
                 *     domain: A DNS domain name: lower-case ASCII, internationalised names in punycode (xn--), no trailing dot.
                 *     url: An http or https URL: host normalised, default port and fragment dropped, path and query kept.
                 *     email: An email address: local part kept as given (it is case-sensitive), domain normalised.
                 *     phone: A phone number in E.164 form: + then 8 to 15 digits.
                 *     organization: An organisation name: Unicode NFC, whitespace collapsed, lower-cased.
                 *     transaction: An opaque transaction id from the caller's systems (case preserved).
                 *     account: An opaque account id from the caller's systems (case preserved).
                 * @enum {string}
                 */
                kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                /** @description The identifier itself, normalised by kind. */
                key: string;
                /**
                 * @description Role the subject played (default linked).
                 * @default linked
                 */
                role: ("source_ip" | "destination_ip" | "hosting" | "domain" | "url" | "email" | "phone" | "account" | "payment" | "organization" | "linked") | null;
            }[] | null;
            /**
             * @description TLP 2.0 style share policy (default clear_share).
             * @default clear_share
             */
            share_policy: ("clear_share" | "green_share" | "amber_share" | "amber_strict_share" | "red_share") | null;
            /**
             * @description Who sees the report (default workspace).
             * @default workspace
             */
            visibility: ("workspace" | "community") | null;
            /**
             * @description Optional namespace within the workspace, lower-cased (default empty).
             * @default
             */
            namespace: string | null;
            /**
             * @description Kind of event (default observation).
             * @default observation
             */
            event_type: ("observation" | "outcome" | "alert") | null;
            /**
             * @description Workflow status (default empty).
             * @default
             */
            status: ("" | "open" | "confirmed" | "disputed" | "resolved") | null;
        };
        ExportRequest: {
            /** @description Kinds of the report's main subject (any of). */
            kind?: ("ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account")[];
            /** @description Outcome codes (any of). */
            outcome_code?: ("fraud_confirmed" | "chargeback" | "account_takeover" | "credential_stuffing" | "fraud_watch" | "spam" | "scraping" | "bot_activity" | "abuse_other" | "legitimate" | "false_positive")[];
            /** @description Severities (any of). */
            severity?: ("info" | "low" | "medium" | "high" | "critical")[];
            /** @description Share policies (any of). */
            share_policy?: ("clear_share" | "green_share" | "amber_share" | "amber_strict_share" | "red_share")[];
            /** @description Namespaces (any of; "" is the default namespace). */
            namespace?: string[];
            /** @description Tags the report carries, all of them. */
            tags?: string[];
            /**
             * Format: date-time
             * @description Stored at or after this instant.
             */
            from?: string;
            /**
             * Format: date-time
             * @description Stored before this instant.
             */
            to?: string;
            /** @description Case-insensitive substring of the title or the summary. */
            text?: string;
            /**
             * @description ndjson: one JSON object per line; csv: RFC 4180 with a header line.
             * @default ndjson
             * @enum {string}
             */
            format: "ndjson" | "csv";
            /**
             * @description Most reports in this answer.
             * @default 100000
             */
            limit: number;
            /** @description X-Next-Cursor of the previous answer: continue after its last report. */
            cursor?: string;
        };
        ScoreResponse: {
            /** @constant */
            ok: true;
            /** @constant */
            endpoint: "score";
            query: {
                /** @description The address scored, in canonical form. */
                ip: string;
            };
            /** @description The calling key (never its secret). */
            api_key: {
                name: string;
                prefix: string;
            };
            /** @description The daily score quota after this call. */
            quota: {
                daily_limit: number;
                used_today: number;
                remaining: number;
                /** @description true when remaining is 0: the next score today is refused */
                over_limit: boolean;
            };
            score: {
                overall_score: number;
                /**
                 * @description Risk level of the overall score: minimal 0-9, low 10-29, medium 30-59, high 60-84, critical 85-100.
                 * @enum {string}
                 */
                overall_risk_level: "minimal" | "low" | "medium" | "high" | "critical";
                matched_count: number;
                /**
                 * @description The dimension that contributed most; null when the score is 0.
                 * @enum {string|null}
                 */
                driver: "ip" | "subnet" | "isp" | "asn" | "org" | "city" | "region" | "country" | null;
                /** @description All 8, in the order ip, subnet, isp, asn, org, city, region, country. */
                dimensions: {
                    /**
                     * @description Dimension code.
                     * @enum {string}
                     */
                    code: "ip" | "subnet" | "isp" | "asn" | "org" | "city" | "region" | "country";
                    /** @description A summary exists for the entity (published or the workspace's own). */
                    matched: boolean;
                    score: number;
                    /** @description null when the IP has none in this dimension. */
                    entity: {
                        key: string;
                        name: string;
                    } | null;
                    /**
                     * @description Risk level of the entity's score; null when unmatched.
                     * @enum {string|null}
                     */
                    level: "minimal" | "low" | "medium" | "high" | "critical" | null;
                    weight: number;
                    /** @description Points of the overall score due to this dimension (they add up to it). */
                    contribution: number;
                    /**
                     * @description Where the summary came from; null when unmatched.
                     * @enum {string|null}
                     */
                    source: "published" | "workspace" | "both" | null;
                    /** @description Why unmatched; null when matched. */
                    reason: string | null;
                    /** @description Evidence counts; null when unmatched. */
                    evidence: {
                        reports: number;
                        bad_ratings: number;
                        neutral_ratings: number;
                        good_ratings: number;
                        feed_listings: number;
                    } | null;
                }[];
            };
            /** @description Lookup activity on this IP across all workspaces (docs/risk-model.md, community signal). */
            community_signal: {
                /** @description false when the signal could not be read for this call (label unavailable, zeros). */
                ok: boolean;
                state: {
                    /**
                     * @description spiking: at least one of the last six complete 10-minute windows is a spike (has_spike is true); converging: no spike, but 3 or more distinct requesters looked the entity up in the last six complete windows; active: looked up in the last six complete windows, by fewer than 3 distinct requesters, no spike; quiet: no lookups in the last six complete windows
                     * @enum {string}
                     */
                    label: "spiking" | "converging" | "active" | "quiet" | "unavailable";
                    has_spike: boolean;
                };
                metrics: {
                    lookups_10m: number;
                    requesters_60m: number;
                    spike_windows_7d: number;
                };
                recent_query_windows: {
                    /** @description UTC start of the 10-minute window, HH:MM. */
                    label: string;
                    hits: number;
                    requesters: number;
                }[];
            };
            links: {
                /**
                 * Format: uri
                 * @description Direct report page of the IP (control plane).
                 */
                ip: string;
                /** @description Report page of each matched dimension entity, by dimension code. */
                dimensions: {
                    [key: string]: string;
                };
            };
            /** @description What the calling workspace itself wrote about the IP. */
            workspace_memory: {
                ratings: {
                    good: number;
                    neutral: number;
                    bad: number;
                };
                last_rating: {
                    /** @enum {integer} */
                    rating: 1 | 0 | -1;
                    note: string;
                    /** Format: date-time */
                    created_at: string;
                } | null;
                /** @description Reports of the workspace naming the IP. */
                reports: number;
            };
            /** @description The publication the answer was computed from (one per call, never a mix). */
            publication: {
                /** @description Publication version (0: nothing published yet). */
                version: number;
                /**
                 * Format: date-time
                 * @description When it was published; null before the first publication.
                 */
                published_at: string | null;
            };
        };
        DimensionsResponse: {
            /** @constant */
            ok: true;
            /** @constant */
            endpoint: "dimensions";
            query: {
                ip: string;
            };
            /** @description Free endpoint: never counted against the score quota. */
            quota: {
                /** @constant */
                counted: false;
                /** @constant */
                reason: "free_endpoint";
            };
            ip: {
                /** @description Canonical address. */
                address: string;
                /** @enum {integer} */
                version: 4 | 6;
                /**
                 * @description announced (routing data), fallback (/24 or /48) or none (special-purpose address).
                 * @enum {string}
                 */
                subnet_source: "announced" | "fallback" | "none";
                /** @description Set for special-purpose addresses (private, loopback, documentation, ...). */
                special: {
                    cidr: string;
                    name: string;
                    reason: string;
                } | null;
            };
            /** @description The publication the answer was computed from (one per call, never a mix). */
            publication: {
                /** @description Publication version (0: nothing published yet). */
                version: number;
                /**
                 * Format: date-time
                 * @description When it was published; null before the first publication.
                 */
                published_at: string | null;
            };
            dimensions: {
                /**
                 * @description Dimension code.
                 * @enum {string}
                 */
                code: "ip" | "subnet" | "isp" | "asn" | "org" | "city" | "region" | "country";
                matched: boolean;
                entity: {
                    key: string;
                    name: string;
                    /** @description Addresses in the entity. */
                    size: number;
                } | null;
                reason: string | null;
                /** @description The published (global) summary; null when none. */
                published: {
                    score: number;
                    /** @enum {string} */
                    level: "minimal" | "low" | "medium" | "high" | "critical";
                    counts: {
                        reports: number;
                        bad_ratings: number;
                        neutral_ratings: number;
                        good_ratings: number;
                        feed_listings: number;
                    };
                    reporters: number;
                    /** Format: date-time */
                    first_seen: string | null;
                    /** Format: date-time */
                    last_seen: string | null;
                } | null;
                /** @description The calling workspace's own layer; null when none. */
                workspace: {
                    score: number;
                    /** @enum {string} */
                    level: "minimal" | "low" | "medium" | "high" | "critical";
                    counts: {
                        reports: number;
                        bad_ratings: number;
                        neutral_ratings: number;
                        good_ratings: number;
                        feed_listings: number;
                    };
                    reporters: number;
                    /** Format: date-time */
                    first_seen: string | null;
                    /** Format: date-time */
                    last_seen: string | null;
                } | null;
            }[];
        };
        RateResponse: {
            /** @constant */
            ok: true;
            /** @constant */
            endpoint: "rate";
            /** @description Free endpoint: never counted against the score quota. */
            quota: {
                /** @constant */
                counted: false;
                /** @constant */
                reason: "free_endpoint";
            };
            /** @description The stored rating. */
            report: {
                ip: string;
                /**
                 * @description 1 good, 0 neutral, -1 bad.
                 * @enum {integer}
                 */
                rating: 1 | 0 | -1;
                /** Format: date-time */
                created_at: string;
            };
        };
        ReportResponse: {
            /** @constant */
            ok: true;
            /** @constant */
            endpoint: "report";
            query: {
                /** @enum {string} */
                kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                /** @description The key as stored (normalised by kind). */
                key: string;
                namespace: string;
            };
            /** @description Free endpoint: never counted against the score quota. */
            quota: {
                /** @constant */
                counted: false;
                /** @constant */
                reason: "free_endpoint";
            };
            memory: {
                /** @enum {string} */
                requested_visibility: "workspace" | "community";
                /** @enum {string} */
                effective_visibility: "workspace" | "community";
                /** @description Why the effective visibility differs; empty when it does not. */
                policy_notice: string;
            };
            /** @description The stored report. */
            report: {
                id: number;
                /** @enum {string} */
                event_type: "observation" | "outcome" | "alert";
                /** @enum {string} */
                outcome_code: "fraud_confirmed" | "chargeback" | "account_takeover" | "credential_stuffing" | "fraud_watch" | "spam" | "scraping" | "bot_activity" | "abuse_other" | "legitimate" | "false_positive";
                title: string;
                summary: string;
                /** @enum {string} */
                severity: "info" | "low" | "medium" | "high" | "critical";
                /** @enum {string} */
                status: "" | "open" | "confirmed" | "disputed" | "resolved";
                tags: string[];
                /** Format: date-time */
                created_at: string;
                subject: {
                    /** @enum {string} */
                    kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                    key: string;
                    /** @enum {string} */
                    share_policy: "clear_share" | "green_share" | "amber_share" | "amber_strict_share" | "red_share";
                };
                related_subjects: {
                    /** @enum {string} */
                    kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                    key: string;
                    /** @enum {string} */
                    role: "source_ip" | "destination_ip" | "hosting" | "domain" | "url" | "email" | "phone" | "account" | "payment" | "organization" | "linked";
                }[];
            };
        };
        ExportRecord: {
            id: number;
            /** Format: date-time */
            created_at: string;
            subject: {
                /** @enum {string} */
                kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                key: string;
            };
            /** @enum {string} */
            event_type: "observation" | "outcome" | "alert";
            /** @enum {string} */
            outcome_code: "fraud_confirmed" | "chargeback" | "account_takeover" | "credential_stuffing" | "fraud_watch" | "spam" | "scraping" | "bot_activity" | "abuse_other" | "legitimate" | "false_positive";
            /** @enum {string} */
            severity: "info" | "low" | "medium" | "high" | "critical";
            /** @enum {string} */
            status: "" | "open" | "confirmed" | "disputed" | "resolved";
            title: string;
            summary: string;
            tags: string[];
            namespace: string;
            /** @enum {string} */
            share_policy: "clear_share" | "green_share" | "amber_share" | "amber_strict_share" | "red_share";
            /** @enum {string} */
            effective_visibility: "workspace" | "community";
            related_subjects: {
                /** @enum {string} */
                kind: "ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account";
                key: string;
                /** @enum {string} */
                role: "source_ip" | "destination_ip" | "hosting" | "domain" | "url" | "email" | "phone" | "account" | "payment" | "organization" | "linked";
            }[];
        };
        Health: {
            /** @constant */
            ok: true;
        };
        Readiness: {
            /** @description true when every check is ok and the server is not draining. */
            ok: boolean;
            /** @description One ping per dependency. */
            checks: {
                /** @enum {string} */
                database: "ok" | "unreachable";
                /** @enum {string} */
                counters: "ok" | "unreachable";
            };
            /** @description true once shutdown began. */
            draining: boolean;
        };
    };
    responses: never;
    parameters: {
        /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
        RequestId: string;
        /**
         * @description Makes a retry safe: a request with the same key and the same body within 48 hours gets the first answer (200, Idempotent-Replayed: true) and writes nothing; the same key with another body is 409 idempotency_key_reused. Keys are per workspace and kept for at least 48 hours (removed by an hourly sweep after that).
         * @example checkout-7f3a9c-rating
         */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description The request's id: the caller's own X-Request-Id when it is 1-128 characters of letters, digits and `.:_+/=-`, otherwise a new UUID. Every log line of the request carries it; quote it when reporting a problem. */
        RequestId: string;
        /** @description The daily score limit of the workspace's tier. */
        RateLimitLimit: number;
        /** @description score calls left today (after this one). */
        RateLimitRemaining: number;
        /** @description Seconds until the count resets at 00:00 UTC. */
        RateLimitReset: number;
        /** @description `<daily limit>;w=86400` (draft-ietf-httpapi-ratelimit-headers). */
        RateLimitPolicy: string;
        /** @description Seconds to wait: to 00:00 UTC for quota_exceeded, 1 for rate_limited. */
        RetryAfter: number;
        /** @description Seconds to wait: 5 for quota_unavailable, 1 for database_unavailable; absent while the server shuts down. */
        RetryAfterWhenKnown: number;
        /** @description The methods the path answers, e.g. `POST` or `GET, POST`. */
        Allow: string;
        /** @description This is the stored answer to an earlier request with the same Idempotency-Key; nothing new was written. */
        IdempotentReplayed: "true";
        /** @description `attachment; filename="reports.ndjson"` or `reports.csv`. */
        ContentDisposition: string;
        /** @description Exports are never cached. */
        CacheControl: "no-store";
        /** @description Present when more reports match than this answer holds: pass it as `cursor` (with the same filters) for the next page. */
        NextCursor: string;
        /** @description GET only, with X-Next-Cursor: `</risk_api/export/?…&cursor=…>; rel="next"` (RFC 8288). */
        Link: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    score: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ip": "9.9.9.9"
                 *     }
                 */
                "application/json": components["schemas"]["IpRequest"];
            };
        };
        responses: {
            /** @description Scored and counted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "endpoint": "score",
                     *       "query": {
                     *         "ip": "9.9.9.9"
                     *       },
                     *       "api_key": {
                     *         "name": "checkout",
                     *         "prefix": "rk_adDTKSHH"
                     *       },
                     *       "quota": {
                     *         "daily_limit": 1000,
                     *         "used_today": 17,
                     *         "remaining": 983,
                     *         "over_limit": false
                     *       },
                     *       "score": {
                     *         "overall_score": 35,
                     *         "overall_risk_level": "medium",
                     *         "matched_count": 5,
                     *         "driver": "ip",
                     *         "dimensions": [
                     *           {
                     *             "code": "ip",
                     *             "matched": true,
                     *             "score": 33,
                     *             "entity": {
                     *               "key": "9.9.9.9",
                     *               "name": "9.9.9.9"
                     *             },
                     *             "level": "medium",
                     *             "weight": 1,
                     *             "contribution": 33,
                     *             "source": "both",
                     *             "reason": null,
                     *             "evidence": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             }
                     *           },
                     *           {
                     *             "code": "subnet",
                     *             "matched": true,
                     *             "score": 2,
                     *             "entity": {
                     *               "key": "9.9.9.0/24",
                     *               "name": "9.9.9.0/24"
                     *             },
                     *             "level": "minimal",
                     *             "weight": 0.6,
                     *             "contribution": 1,
                     *             "source": "both",
                     *             "reason": null,
                     *             "evidence": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             }
                     *           },
                     *           {
                     *             "code": "isp",
                     *             "matched": true,
                     *             "score": 1,
                     *             "entity": {
                     *               "key": "quad9",
                     *               "name": "Quad9"
                     *             },
                     *             "level": "minimal",
                     *             "weight": 0.4,
                     *             "contribution": 0,
                     *             "source": "both",
                     *             "reason": null,
                     *             "evidence": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             }
                     *           },
                     *           {
                     *             "code": "asn",
                     *             "matched": true,
                     *             "score": 1,
                     *             "entity": {
                     *               "key": "AS19281",
                     *               "name": "AS19281"
                     *             },
                     *             "level": "minimal",
                     *             "weight": 0.45,
                     *             "contribution": 1,
                     *             "source": "both",
                     *             "reason": null,
                     *             "evidence": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             }
                     *           },
                     *           {
                     *             "code": "org",
                     *             "matched": true,
                     *             "score": 1,
                     *             "entity": {
                     *               "key": "quad9",
                     *               "name": "Quad9"
                     *             },
                     *             "level": "minimal",
                     *             "weight": 0.4,
                     *             "contribution": 0,
                     *             "source": "both",
                     *             "reason": null,
                     *             "evidence": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             }
                     *           },
                     *           {
                     *             "code": "city",
                     *             "matched": false,
                     *             "score": 0,
                     *             "entity": null,
                     *             "level": null,
                     *             "weight": 0.2,
                     *             "contribution": 0,
                     *             "source": null,
                     *             "reason": "the geo data has no location for this address",
                     *             "evidence": null
                     *           },
                     *           {
                     *             "code": "region",
                     *             "matched": false,
                     *             "score": 0,
                     *             "entity": null,
                     *             "level": null,
                     *             "weight": 0.15,
                     *             "contribution": 0,
                     *             "source": null,
                     *             "reason": "the geo data has no location for this address",
                     *             "evidence": null
                     *           },
                     *           {
                     *             "code": "country",
                     *             "matched": false,
                     *             "score": 0,
                     *             "entity": null,
                     *             "level": null,
                     *             "weight": 0.1,
                     *             "contribution": 0,
                     *             "source": null,
                     *             "reason": "the geo data has no location for this address",
                     *             "evidence": null
                     *           }
                     *         ]
                     *       },
                     *       "community_signal": {
                     *         "ok": true,
                     *         "state": {
                     *           "label": "quiet",
                     *           "has_spike": false
                     *         },
                     *         "metrics": {
                     *           "lookups_10m": 0,
                     *           "requesters_60m": 0,
                     *           "spike_windows_7d": 0
                     *         },
                     *         "recent_query_windows": [
                     *           {
                     *             "label": "09:00",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           },
                     *           {
                     *             "label": "09:10",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           },
                     *           {
                     *             "label": "09:20",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           },
                     *           {
                     *             "label": "09:30",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           },
                     *           {
                     *             "label": "09:40",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           },
                     *           {
                     *             "label": "09:50",
                     *             "hits": 0,
                     *             "requesters": 0
                     *           }
                     *         ]
                     *       },
                     *       "links": {
                     *         "ip": "http://127.0.0.1:8080/workspace/reports/ip/9.9.9.9",
                     *         "dimensions": {
                     *           "ip": "http://127.0.0.1:8080/workspace/reports/ip/9.9.9.9",
                     *           "subnet": "http://127.0.0.1:8080/workspace/reports/subnet/9.9.9.0%2F24",
                     *           "isp": "http://127.0.0.1:8080/workspace/reports/isp/quad9",
                     *           "asn": "http://127.0.0.1:8080/workspace/reports/asn/AS19281",
                     *           "org": "http://127.0.0.1:8080/workspace/reports/org/quad9"
                     *         }
                     *       },
                     *       "workspace_memory": {
                     *         "ratings": {
                     *           "good": 0,
                     *           "neutral": 0,
                     *           "bad": 1
                     *         },
                     *         "last_rating": {
                     *           "rating": -1,
                     *           "note": "mule",
                     *           "created_at": "2026-11-23T09:58:12.633Z"
                     *         },
                     *         "reports": 1
                     *       },
                     *       "publication": {
                     *         "version": 12,
                     *         "published_at": "2026-11-23T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ScoreResponse"];
                };
            };
            /** @description `invalid_json`: the body is not JSON; `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `tier_not_eligible`: the workspace's tier does not include score. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is over MAX_BODY_BYTES. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_exceeded`: the daily score quota is used up; `rate_limited`: more score calls per second with this key than the tier's burst limit. */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_unavailable`: the counter store is unreachable: score fails closed; `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    dimensions: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ip": "9.9.9.9"
                 *     }
                 */
                "application/json": components["schemas"]["IpRequest"];
            };
        };
        responses: {
            /** @description The hierarchy and its summaries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "endpoint": "dimensions",
                     *       "query": {
                     *         "ip": "9.9.9.9"
                     *       },
                     *       "quota": {
                     *         "counted": false,
                     *         "reason": "free_endpoint"
                     *       },
                     *       "ip": {
                     *         "address": "9.9.9.9",
                     *         "version": 4,
                     *         "special": null,
                     *         "subnet_source": "announced"
                     *       },
                     *       "publication": {
                     *         "version": 12,
                     *         "published_at": "2026-11-23T10:00:00.000Z"
                     *       },
                     *       "dimensions": [
                     *         {
                     *           "code": "ip",
                     *           "matched": true,
                     *           "entity": {
                     *             "key": "9.9.9.9",
                     *             "name": "9.9.9.9",
                     *             "size": 1
                     *           },
                     *           "reason": null,
                     *           "published": {
                     *             "score": 20,
                     *             "level": "low",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 0,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           },
                     *           "workspace": {
                     *             "score": 33,
                     *             "level": "medium",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           }
                     *         },
                     *         {
                     *           "code": "subnet",
                     *           "matched": true,
                     *           "entity": {
                     *             "key": "9.9.9.0/24",
                     *             "name": "9.9.9.0/24",
                     *             "size": 256
                     *           },
                     *           "reason": null,
                     *           "published": {
                     *             "score": 1,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 0,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           },
                     *           "workspace": {
                     *             "score": 2,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           }
                     *         },
                     *         {
                     *           "code": "isp",
                     *           "matched": true,
                     *           "entity": {
                     *             "key": "quad9",
                     *             "name": "Quad9",
                     *             "size": 2304
                     *           },
                     *           "reason": null,
                     *           "published": {
                     *             "score": 0,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 0,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           },
                     *           "workspace": {
                     *             "score": 1,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           }
                     *         },
                     *         {
                     *           "code": "asn",
                     *           "matched": true,
                     *           "entity": {
                     *             "key": "AS19281",
                     *             "name": "AS19281",
                     *             "size": 1792
                     *           },
                     *           "reason": null,
                     *           "published": {
                     *             "score": 1,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 0,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           },
                     *           "workspace": {
                     *             "score": 1,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           }
                     *         },
                     *         {
                     *           "code": "org",
                     *           "matched": true,
                     *           "entity": {
                     *             "key": "quad9",
                     *             "name": "Quad9",
                     *             "size": 2304
                     *           },
                     *           "reason": null,
                     *           "published": {
                     *             "score": 0,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 0,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           },
                     *           "workspace": {
                     *             "score": 1,
                     *             "level": "minimal",
                     *             "counts": {
                     *               "reports": 1,
                     *               "bad_ratings": 1,
                     *               "neutral_ratings": 0,
                     *               "good_ratings": 0,
                     *               "feed_listings": 0
                     *             },
                     *             "reporters": 1,
                     *             "first_seen": "2026-11-23T09:58:12.602Z",
                     *             "last_seen": "2026-11-23T09:58:12.633Z"
                     *           }
                     *         },
                     *         {
                     *           "code": "city",
                     *           "matched": false,
                     *           "entity": null,
                     *           "reason": "the geo data has no location for this address",
                     *           "published": null,
                     *           "workspace": null
                     *         },
                     *         {
                     *           "code": "region",
                     *           "matched": false,
                     *           "entity": null,
                     *           "reason": "the geo data has no location for this address",
                     *           "published": null,
                     *           "workspace": null
                     *         },
                     *         {
                     *           "code": "country",
                     *           "matched": false,
                     *           "entity": null,
                     *           "reason": "the geo data has no location for this address",
                     *           "published": null,
                     *           "workspace": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DimensionsResponse"];
                };
            };
            /** @description `invalid_json`: the body is not JSON; `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `tier_not_eligible`: the workspace's tier does not include score. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is over MAX_BODY_BYTES. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
                /**
                 * @description Makes a retry safe: a request with the same key and the same body within 48 hours gets the first answer (200, Idempotent-Replayed: true) and writes nothing; the same key with another body is 409 idempotency_key_reused. Keys are per workspace and kept for at least 48 hours (removed by an hourly sweep after that).
                 * @example checkout-7f3a9c-rating
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ip": "203.0.113.9",
                 *       "rating": -1,
                 *       "note": "card testing"
                 *     }
                 */
                "application/json": components["schemas"]["RateRequest"];
            };
        };
        responses: {
            /** @description A replay: the Idempotency-Key and body match an earlier write, whose answer this is; nothing was written. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateResponse"];
                };
            };
            /** @description Stored. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "endpoint": "rate",
                     *       "quota": {
                     *         "counted": false,
                     *         "reason": "free_endpoint"
                     *       },
                     *       "report": {
                     *         "ip": "203.0.113.9",
                     *         "rating": -1,
                     *         "created_at": "2026-11-23T10:04:00.368Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["RateResponse"];
                };
            };
            /** @description `invalid_json`: the body is not JSON; `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused`: the Idempotency-Key was used with another body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is over MAX_BODY_BYTES. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    report: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
                /**
                 * @description Makes a retry safe: a request with the same key and the same body within 48 hours gets the first answer (200, Idempotent-Replayed: true) and writes nothing; the same key with another body is 409 idempotency_key_reused. Keys are per workspace and kept for at least 48 hours (removed by an hourly sweep after that).
                 * @example checkout-7f3a9c-rating
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "domain",
                 *       "key": "Bücher.Example",
                 *       "title": "Card testing",
                 *       "summary": "Many small charges",
                 *       "outcome_code": "fraud_watch",
                 *       "severity": "high",
                 *       "tags": [
                 *         "carding"
                 *       ],
                 *       "related_subjects": [
                 *         {
                 *           "kind": "ipaddress",
                 *           "key": "198.51.100.7",
                 *           "role": "source_ip"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ReportRequest"];
            };
        };
        responses: {
            /** @description A replay: the Idempotency-Key and body match an earlier write, whose answer this is; nothing was written. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReportResponse"];
                };
            };
            /** @description Stored. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "endpoint": "report",
                     *       "query": {
                     *         "kind": "domain",
                     *         "key": "xn--bcher-kva.example",
                     *         "namespace": ""
                     *       },
                     *       "quota": {
                     *         "counted": false,
                     *         "reason": "free_endpoint"
                     *       },
                     *       "memory": {
                     *         "requested_visibility": "workspace",
                     *         "effective_visibility": "workspace",
                     *         "policy_notice": ""
                     *       },
                     *       "report": {
                     *         "id": 1,
                     *         "event_type": "observation",
                     *         "outcome_code": "fraud_watch",
                     *         "title": "Card testing",
                     *         "summary": "Many small charges",
                     *         "severity": "high",
                     *         "status": "",
                     *         "tags": [
                     *           "carding"
                     *         ],
                     *         "created_at": "2026-11-23T10:04:00.496Z",
                     *         "subject": {
                     *           "kind": "domain",
                     *           "key": "xn--bcher-kva.example",
                     *           "share_policy": "clear_share"
                     *         },
                     *         "related_subjects": [
                     *           {
                     *             "kind": "ipaddress",
                     *             "key": "198.51.100.7",
                     *             "role": "source_ip"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ReportResponse"];
                };
            };
            /** @description `invalid_json`: the body is not JSON; `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused`: the Idempotency-Key was used with another body. */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is over MAX_BODY_BYTES. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportReports: {
        parameters: {
            query?: {
                /** @description Kinds of the report's main subject (any of). */
                kind?: ("ipaddress" | "cidr" | "asn" | "domain" | "url" | "email" | "phone" | "organization" | "transaction" | "account")[];
                /** @description Outcome codes (any of). */
                outcome_code?: ("fraud_confirmed" | "chargeback" | "account_takeover" | "credential_stuffing" | "fraud_watch" | "spam" | "scraping" | "bot_activity" | "abuse_other" | "legitimate" | "false_positive")[];
                /** @description Severities (any of). */
                severity?: ("info" | "low" | "medium" | "high" | "critical")[];
                /** @description Share policies (any of). */
                share_policy?: ("clear_share" | "green_share" | "amber_share" | "amber_strict_share" | "red_share")[];
                /** @description Namespaces (any of; "" is the default namespace). */
                namespace?: string[];
                /** @description Tags the report carries, all of them. */
                tags?: string[];
                /** @description Stored at or after this instant. */
                from?: string;
                /** @description Stored before this instant. */
                to?: string;
                /** @description Case-insensitive substring of the title or the summary. */
                text?: string;
                /** @description ndjson: one JSON object per line; csv: RFC 4180 with a header line. */
                format?: "ndjson" | "csv";
                /** @description Most reports in this answer. */
                limit?: number;
                /** @description X-Next-Cursor of the previous answer: continue after its last report. */
                cursor?: string;
            };
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reports. application/x-ndjson: one ExportRecord per line; text/csv: a header line, then one line per report. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Next-Cursor": components["headers"]["NextCursor"];
                    Link: components["headers"]["Link"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "created_at": "2026-11-23T10:04:00.496Z",
                     *       "subject": {
                     *         "kind": "domain",
                     *         "key": "xn--bcher-kva.example"
                     *       },
                     *       "event_type": "observation",
                     *       "outcome_code": "fraud_watch",
                     *       "severity": "high",
                     *       "status": "",
                     *       "title": "Card testing",
                     *       "summary": "Many small charges",
                     *       "tags": [
                     *         "carding"
                     *       ],
                     *       "namespace": "",
                     *       "share_policy": "clear_share",
                     *       "effective_visibility": "workspace",
                     *       "related_subjects": [
                     *         {
                     *           "kind": "ipaddress",
                     *           "key": "198.51.100.7",
                     *           "role": "source_ip"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/x-ndjson": components["schemas"]["ExportRecord"];
                    /**
                     * @example id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects
                     *     1,2026-11-23T10:04:00.496Z,"domain","xn--bcher-kva.example",observation,fraud_watch,high,"","Card testing","Many small charges","carding","",clear_share,workspace,"[{""kind"":""ipaddress"",""key"":""198.51.100.7"",""role"":""source_ip""}]"
                     */
                    "text/csv": string;
                };
            };
            /** @description `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportReportsPost: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "outcome_code": [
                 *         "fraud_watch",
                 *         "spam"
                 *       ],
                 *       "from": "2026-11-01T00:00:00Z",
                 *       "format": "csv"
                 *     }
                 */
                "application/json": components["schemas"]["ExportRequest"];
            };
        };
        responses: {
            /** @description The reports. application/x-ndjson: one ExportRecord per line; text/csv: a header line, then one line per report. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "X-Next-Cursor": components["headers"]["NextCursor"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "created_at": "2026-11-23T10:04:00.496Z",
                     *       "subject": {
                     *         "kind": "domain",
                     *         "key": "xn--bcher-kva.example"
                     *       },
                     *       "event_type": "observation",
                     *       "outcome_code": "fraud_watch",
                     *       "severity": "high",
                     *       "status": "",
                     *       "title": "Card testing",
                     *       "summary": "Many small charges",
                     *       "tags": [
                     *         "carding"
                     *       ],
                     *       "namespace": "",
                     *       "share_policy": "clear_share",
                     *       "effective_visibility": "workspace",
                     *       "related_subjects": [
                     *         {
                     *           "kind": "ipaddress",
                     *           "key": "198.51.100.7",
                     *           "role": "source_ip"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/x-ndjson": components["schemas"]["ExportRecord"];
                    /**
                     * @example id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects
                     *     1,2026-11-23T10:04:00.496Z,"domain","xn--bcher-kva.example",observation,fraud_watch,high,"","Card testing","Many small charges","carding","",clear_share,workspace,"[{""kind"":""ipaddress"",""key"":""198.51.100.7"",""role"":""source_ip""}]"
                     */
                    "text/csv": string;
                };
            };
            /** @description `invalid_json`: the body is not JSON; `invalid_request`: a field, parameter or header is invalid (details names each); `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`: no key in X-API-Key or Authorization: Bearer; `invalid_api_key`: an unknown, malformed or revoked key, or an Authorization header that is not Bearer. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is over MAX_BODY_BYTES. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json. */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: unexpected; logged under request_id. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_unavailable`: the database dropped the connection; retry writes with the same Idempotency-Key; `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        openapi: "3.1.0";
                        info: Record<string, never>;
                        paths: Record<string, never>;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description `method_not_allowed`: another method than the path answers (see Allow). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "checks": {
                     *         "database": "ok",
                     *         "counters": "ok"
                     *       },
                     *       "draining": false
                     *     }
                     */
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Not ready: a check failed (named in checks), or the server is shutting down (then the service_unavailable error body). */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": false,
                     *       "checks": {
                     *         "database": "unreachable",
                     *         "counters": "ok"
                     *       },
                     *       "draining": false
                     *     }
                     */
                    "application/json": components["schemas"]["Readiness"] | components["schemas"]["Error"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your own id for this request (a proxy's or tracer's): kept and echoed when it is 1-128 characters of letters, digits and `.:_+/=-`. */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.
                     *     # TYPE process_cpu_user_seconds_total counter
                     *     process_cpu_user_seconds_total 12.5
                     */
                    "text/plain": string;
                };
            };
            /** @description METRICS_TOKEN is set and the request did not send it. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the server is shutting down. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfterWhenKnown"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

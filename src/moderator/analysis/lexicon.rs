//! What words say about a question: the decision domains they belong to, the
//! constraints they imply, and the kinds of things a question chooses between. Matched
//! with [`super::terms::Terms`], so one form of a word stands for all of them.

/// Decision domains and the words that point to them.
pub const DOMAINS: &[(&str, &[&str])] = &[
    (
        "data",
        &[
            "data", "database", "cache", "redis", "postgres", "postgresql", "mysql", "sql", "nosql", "mongodb",
            "dynamodb", "schema", "storage", "index", "replication", "sqlite", "orm", "table",
            "warehouse", "pipeline", "consistency", "transaction", "backup", "billing", "payment", "ledger", "daten", "donnees", "datos", "dados",
            "データ", "数据", "キャッシュ", "缓存",
        ],
    ),
    (
        "messaging",
        &[
            "messaging", "message", "queue", "broker", "kafka", "rabbitmq", "sqs", "sns", "nats", "pulsar", "kinesis",
            "activemq", "pub/sub", "pubsub", "event bus", "message bus", "topic", "consumer", "producer", "mqtt",
        ],
    ),
    (
        "architecture",
        &[
            "architecture", "monolith", "microservices", "service", "api", "rest", "graphql", "grpc", "plugin",
            "module", "event", "framework", "system", "design", "rewrite", "serverless", "backend", "refactor",
            "sourcing",
        ],
    ),
    (
        "security",
        &[
            "security", "secure", "safe", "auth", "authentication", "authorization", "login", "password", "token",
            "jwt", "oauth", "session", "encryption", "secret", "credential", "sso", "mfa", "permission", "access",
            "vulnerability", "attack", "pinning", "certificate", "contrasena", "passwort", "mot de passe", "securite",
            "sicherheit", "seguridad", "セキュリティ", "安全",
        ],
    ),
    (
        "ux",
        &[
            "ui", "ux", "user", "frontend", "front-end", "react", "vue", "svelte", "angular", "mobile", "ios",
            "android", "accessibility", "customer", "dashboard", "website", "visitor", "screen", "usuario",
            "utilisateur", "benutzer", "nutzer", "ユーザー", "用户",
        ],
    ),
    (
        "operations",
        &[
            "deploy", "kubernetes", "k8s", "monitoring", "ops", "infrastructure", "hosting", "host", "observability",
            "oncall", "on-call", "ci", "uptime", "outage", "incident", "backup", "restore", "alert", "region",
            "staging", "production", "rollout", "recover", "logs", "instances", "vms",
        ],
    ),
    (
        "cost",
        &[
            "cost", "budget", "cheap", "expensive", "price", "pricing", "spend", "license", "licence", "vendor", "saas",
            "pay", "money", "bill", "savings", "buy", "facture", "kosten", "coste", "custo", "费用", "成本", "コスト",
        ],
    ),
    (
        "process",
        &[
            "team", "hiring", "hire", "meeting", "agile", "scrum", "kanban", "review", "remote", "culture", "pairing",
            "sprint", "standup", "engineers", "contractors", "onboarding", "burnout", "workflow", "equipe", "equipo",
            "チーム", "团队",
        ],
    ),
    (
        "compliance",
        &[
            "compliance", "gdpr", "hipaa", "soc2", "soc", "pci", "audit", "regulation", "regulatory", "residency",
            "privacy", "retention", "legal", "consent", "personal data", "dsgvo", "rgpd", "lgpd", "datenschutz",
            "personenbezogen", "個人情報", "个人信息", "隐私",
        ],
    ),
];

/// What a small team implies, and who it favours: named by phrases below and found
/// near numbers ("a team of three").
pub const SMALL_TEAM: (&str, &[&str]) =
    ("a small team has to run it", &["Operational Simplicity", "Team Sustainability", "Simplicity Advocate"]);

/// Phrases that imply a constraint, what it means, and who it favours.
pub const CONSTRAINTS: &[(&[&str], &str, &[&str])] = &[
    (
        &[
            "ship fast", "ship quickly", "quickly", "deadline", "asap", "mvp", "prototype", "time to market", "this
            quarter", "next week",
        ],
        "delivery speed matters",
        &["Developer Velocity", "Simplicity Advocate"],
    ),
    (
        &["small team", "few engineers", "solo", "one developer", "two developers", "tiny team"],
        SMALL_TEAM.0,
        SMALL_TEAM.1,
    ),
    (
        &["scale", "millions", "high traffic", "low latency", "at scale", "heavy load"],
        "scale and speed matter",
        &["Performance Advocate", "Reliability Engineer"],
    ),
    (
        &[
            "budget", "cheap", "cost", "expensive", "save money", "bill", "spend", "a month", "per month", "facture",
            "factura", "rechnung", "kosten",
        ],
        "cost matters",
        &["Cost Control"],
    ),
    (
        &[
            "gdpr", "hipaa", "compliance", "regulated", "soc2", "soc 2", "pci", "audit", "dsgvo", "rgpd", "lgpd",
            "patient", "medical", "health data",
        ],
        "regulatory obligations apply",
        &["Compliance Guardian", "Security Advocate"],
    ),
    (
        &[
            "sensitive", "personal data", "secure", "security", "breach", "personenbezogen", "donnees personnelles",
            "datos personales", "dados pessoais", "個人情報", "个人信息",
        ],
        "data must be protected",
        &["Security Advocate", "Compliance Guardian"],
    ),
    (
        &["safe", "unsafe", "untrusted", "attack", "leak", "exposed", "vulnerable", "api key", "secret", "credential"],
        "security is at stake",
        &["Security Advocate"],
    ),
    (
        &[
            "how long should we keep", "how long may we keep", "how long can we keep", "how long do we keep", "how long
            to keep", "retention", "保存期間", "期間保存",
        ],
        "how long data is kept is a retention obligation and a storage bill",
        &["Compliance Guardian", "Cost Control"],
    ),
    (
        &["long term", "long-term", "future", "grow", "growth", "evolve"],
        "the choice must age well",
        &["Future Flexibility"],
    ),
    (
        &[
            "uptime", "high availability", "99.9", "outage", "downtime", "went down", "multi-region", "failover",
            "disponibilité", "verfügbarkeit", "disponibilidad", "disponibilidade", "可用性",
        ],
        "availability matters",
        &["Reliability Engineer"],
    ),
    (
        &["lock-in", "lock in", "vendor", "portable", "portability", "proprietary"],
        "lock-in is a concern",
        &["Vendor Independence"],
    ),
    (
        &[
            "dynamodb", "firestore", "firebase", "bigquery", "cosmosdb", "spanner", "lambda", "cloud functions", "azure
            functions", "app engine", "kinesis", "sqs",
        ],
        "a proprietary cloud service: leaving it means a rewrite",
        &["Vendor Independence"],
    ),
];

/// A team word near a small number ("a team of three", "uma equipe de três pessoas")
/// is a small team, in the languages the options cover.
pub const TEAM_WORDS: &[&str] = &["team", "equipe", "equipo", "squadra", "チーム", "团队"];
pub const SMALL_NUMBERS: &[&str] = &[
    "1", "2", "3", "4", "one", "two", "three", "four", "zwei", "drei", "vier", "deux", "trois", "quatre", "dos",
    "tres", "cuatro", "dois", "duas", "quatro", "due", "tre", "quattro",
];

/// A kind of thing a question chooses between: the words that name its role in the
/// question ("as the queue"), the names of things of its kind, what such a choice turns
/// on, and who that favours.
pub struct Choice {
    pub roles: &'static [&'static str],
    pub names: &'static [&'static str],
    pub meaning: &'static str,
    pub favours: &'static [&'static str],
}

/// A kind counts when every option the question names is of it ("Go or Rust?"), or
/// when the question names its role and an option is of it ("Redis or Postgres for
/// caching?"): the names tell what is being chosen, not which concern matters.
pub const CHOICES: &[Choice] = &[
    Choice {
        roles: &["language"],
        names: &[
            "go", "golang", "rust", "kotlin", "java", "python", "typescript", "javascript", "ruby", "elixir", "scala",
            "c#", "c++", "swift", "php", "haskell", "clojure", "dart", "zig", "node.js", "erlang", "ocaml", "f#",
            ".net",
        ],
        meaning: "a programming language: the team has to learn it, hire for it and own it",
        favours: &["Team Sustainability", "Developer Velocity"],
    },
    Choice {
        roles: &[],
        names: &[
            "react", "vue", "svelte", "angular", "solid", "ember", "preact", "next.js", "nuxt", "remix", "htmx",
            "astro", "jquery", "blazor",
        ],
        meaning: "a frontend framework: every screen is built with it and the team must know it",
        favours: &["Team Sustainability", "Developer Velocity", "User Experience"],
    },
    Choice {
        roles: &[],
        names: &[
            "flutter", "react native", "native", "swiftui", "kotlin multiplatform", "ionic", "xamarin", "capacitor",
            "pwa", "cross-platform", "hybrid",
        ],
        meaning: "how the app is built: native feel against one shared codebase",
        favours: &["User Experience", "Developer Velocity"],
    },
    Choice {
        roles: &["database", "datastore", "primary store"],
        names: &[
            "postgres", "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "mongo", "dynamodb", "cassandra",
            "scylladb", "cockroachdb", "redis", "sql server", "oracle", "firestore", "couchdb", "neo4j", "clickhouse",
            "elasticsearch", "supabase", "spanner", "cosmosdb",
        ],
        meaning: "a datastore: how safe the data is there and how fast the team works with it",
        favours: &["Data Integrity", "Developer Velocity"],
    },
    Choice {
        roles: &["cache"],
        names: &["redis", "memcached", "valkey", "varnish", "dragonfly", "keydb", "hazelcast", "cdn"],
        meaning: "a cache: speed bought with another moving part",
        favours: &["Performance Advocate", "Operational Simplicity"],
    },
    Choice {
        roles: &["queue", "broker", "messaging", "message bus", "event bus"],
        names: &[
            "kafka", "rabbitmq", "sqs", "sns", "nats", "pulsar", "kinesis", "activemq", "pub/sub", "pubsub",
            "eventbridge", "redis", "zeromq", "confluent", "redpanda", "celery", "sidekiq",
        ],
        meaning: "a message broker: every event passes through it and someone runs it",
        favours: &["Reliability Engineer", "Operational Simplicity"],
    },
    Choice {
        roles: &[],
        names: &["rest", "graphql", "grpc", "soap", "json-rpc", "trpc", "websocket", "webhook", "openapi", "thrift"],
        meaning: "an API style: a contract clients build against and that must evolve",
        favours: &["Future Flexibility"],
    },
    Choice {
        roles: &[],
        names: &[
            "monolith", "microservices", "modular monolith", "serverless", "soa", "micro-frontends", "event-driven",
        ],
        meaning: "how the system is split: one thing to run against parts that evolve apart",
        favours: &["Simplicity Advocate", "Future Flexibility"],
    },
    Choice {
        roles: &[],
        names: &[
            "kubernetes", "k8s", "ecs", "eks", "gke", "aks", "nomad", "heroku", "fly.io", "render", "vercel", "netlify",
            "vm", "vms", "virtual machines", "maquinas virtuais", "maquinas virtuales", "machines virtuelles",
            "virtuelle maschinen", "bare metal", "ec2", "lambda", "cloud run", "app engine", "docker compose", "paas",
            "on-prem",
        ],
        meaning: "where it runs: someone operates it and someone pays for it",
        favours: &["Operational Simplicity", "Cost Control"],
    },
    Choice {
        roles: &[],
        names: &[
            "github actions", "gitlab ci", "buildkite", "circleci", "jenkins", "travis", "teamcity", "drone", "azure
            pipelines", "bitbucket pipelines",
        ],
        meaning: "a CI service: every change waits on it, priced per minute or per seat",
        favours: &["Developer Velocity", "Cost Control"],
    },
    Choice {
        roles: &[],
        names: &[
            "datadog", "grafana", "prometheus", "new relic", "honeycomb", "sentry", "splunk", "kibana", "loki",
            "opentelemetry", "dynatrace", "jaeger",
        ],
        meaning: "a monitoring stack: a SaaS bill against the work of running it",
        favours: &["Operational Simplicity", "Cost Control"],
    },
    Choice {
        roles: &[],
        names: &["self-hosted", "self-managed", "on-premises", "managed", "cloud", "saas", "hosted"],
        meaning: "who runs it: managed convenience against owning it and its exit",
        favours: &["Operational Simplicity", "Vendor Independence"],
    },
    Choice {
        roles: &[],
        names: &["build", "buy", "in-house", "off-the-shelf", "outsource", "open source"],
        meaning: "build or buy: licence fees against engineering time and upkeep",
        favours: &["Cost Control", "Team Sustainability"],
    },
    Choice {
        roles: &[],
        names: &["canary", "blue-green", "rolling", "feature flag", "dark launch", "big bang", "shadow"],
        meaning: "a release strategy: blast radius and rollback time",
        favours: &["Reliability Engineer", "Developer Velocity"],
    },
    Choice {
        roles: &[],
        names: &["scrum", "kanban", "shape up", "xp", "waterfall", "scrumban", "lean"],
        meaning: "a way of working: the team's load, focus and flow",
        favours: &["Team Sustainability", "Developer Velocity"],
    },
    Choice {
        roles: &[],
        names: &["ssr", "spa", "ssg", "csr", "mpa", "static site", "islands", "server-side rendering", "single-page"],
        meaning: "how pages reach the browser: first load, search engines and navigation feel",
        favours: &["User Experience", "Performance Advocate"],
    },
    Choice {
        roles: &[],
        names: &["exactly-once", "at-least-once", "at-most-once"],
        meaning: "delivery guarantees: lost or doubled messages against throughput",
        favours: &["Data Integrity", "Performance Advocate"],
    },
    Choice {
        roles: &[],
        names: &["reserved instances", "savings plans", "spot instances", "on-demand", "committed use", "spot"],
        meaning: "a pricing commitment: depth of discount against freedom to change",
        favours: &["Cost Control", "Future Flexibility"],
    },
    Choice {
        roles: &[],
        names: &["engineers", "engineer", "contractors", "contractor", "freelancers", "agency", "consultants", "hire"],
        meaning: "who does the work: owning it for years against capacity now",
        favours: &["Team Sustainability", "Developer Velocity"],
    },
    Choice {
        roles: &[],
        names: &["localstorage", "sessionstorage", "cookies", "cookie", "indexeddb", "memory"],
        meaning: "where the browser keeps secrets: exposure to scripts against convenience",
        favours: &["Security Advocate", "User Experience"],
    },
];

/// Verbs a course of action starts with, in their base form ("split the billing service
/// out", "pay for Datadog"): the word after an "or" that is one of them (or its "-ing"
/// form) makes the alternatives courses of action rather than names. Nouns that are
/// verbs too ("cache", "queue", "version") are left out, so "Redis or cache keys?" stays
/// a choice of names.
pub const VERBS: &[&str] = &[
    "accept", "add", "adopt", "allow", "anonymise", "anonymize", "archive", "automate", "avoid", "ban", "block", "build", "buy", "centralise",
    "centralize", "change", "choose", "consolidate", "containerise", "containerize", "continue", "convert", "cut",
    "decouple", "defer", "delete", "denormalise", "denormalize", "deploy", "deprecate", "disable", "drop", "embed",
    "enable", "encrypt", "expose", "extract", "federate", "fork", "freeze", "give", "go", "hand", "hire", "host",
    "implement", "inline", "introduce", "invest", "isolate", "keep", "let", "maintain", "make", "merge", "migrate",
    "move", "normalise", "normalize", "open-source", "outsource", "partition", "pay", "persist", "pick", "pin",
    "port", "postpone", "publish", "put", "rebuild", "redesign", "reduce", "refactor", "reimplement", "remain",
    "remove", "rename", "replace", "replicate", "require", "restrict", "retire", "rewrite", "rotate", "run",
    "self-host", "sell", "send", "shard", "share", "ship", "shut", "split", "standardise", "standardize", "start",
    "stay", "stick", "stop", "store", "subscribe", "switch", "sync", "take", "terminate", "train", "try", "turn", "upgrade", "use",
    "wait", "write",
];

/// Verbs that choose a thing rather than do something with it ("use Kafka", "move our
/// services to Kubernetes", "stay with CloudFormation"): alternatives that all start
/// with one name the things chosen, and those are the options.
pub const CHOOSING: &[&str] = &[
    "use", "adopt", "choose", "pick", "keep", "stay", "stick", "remain", "switch", "move", "migrate", "go", "run",
    "deploy", "host", "standardise", "standardize",
];

/// Verbs that keep what exists ("stay with", "keep deploying them to"): what they name is
/// the way the question already has, so none is added.
pub const KEEPING: &[&str] = &["keep", "stay", "stick", "remain"];

use super::ways::PROPOSAL_CHARS;
use super::words::KEEP;
use super::words::OPTION_WORDS;
use super::*;
use proptest::prelude::*;

fn options(question: &str) -> Vec<String> {
    read(question).options
}

#[test]
fn the_issues_questions_read_as_a_reader_sees_them() {
    let table: [(&str, &[&str]); 5] = [
        ("Should we cache product pages in Redis or in Postgres?", &["Redis", "Postgres"]),
        ("Should we write the new CLI in Go or in Rust?", &["Go", "Rust"]),
        ("Should we use gRPC or REST between the order service and the inventory service?", &["gRPC", "REST"]),
        ("Is it worth rewriting the image resizer from Python to Rust?", &["rewrite it in Rust", "keep Python"]),
        (
            "Do we adopt Terraform, Pulumi or stay with hand-written CloudFormation?",
            &["Terraform", "Pulumi", "CloudFormation"],
        ),
    ];
    for (question, seen) in table {
        let read = options(question);
        let same = read.len() == seen.len() && read.iter().zip(seen).all(|(a, b)| a.eq_ignore_ascii_case(b));
        assert!(same, "{question}: {read:?}, a reader sees {seen:?}");
    }
}

#[test]
fn binary_questions_name_two_options() {
    assert_eq!(options("Should we use Redis or Postgres for caching?"), ["Redis", "Postgres"]);
    assert_eq!(options("REST vs GraphQL for the public API"), ["REST", "GraphQL"]);
    assert_eq!(options("Monorepo versus polyrepo for our twelve services?"), ["Monorepo", "polyrepo"]);
    assert_eq!(options("Monolith or microservices?"), ["Monolith", "microservices"]);
    assert_eq!(options("Should we choose between Kafka and RabbitMQ?"), ["Kafka", "RabbitMQ"]);
    assert_eq!(options("Go or Rust?"), ["Go", "Rust"], "a boundary word next to the connector is an option");
    assert_eq!(options("Should we write the new ingestion service in Rust or Go?"), ["Rust", "Go"], "Go: a name");
    assert_eq!(
        options("Should we hire two senior engineers or four contractors to hit the deadline?"),
        ["two senior engineers", "four contractors"]
    );
    assert_eq!(options("Should our apps be native or Flutter?"), ["native", "Flutter"]);
    assert_eq!(
        options("Should we deploy on Kubernetes or a managed PaaS like Heroku?"),
        ["Kubernetes", "managed PaaS"]
    );
}

#[test]
fn lists_name_every_option() {
    assert_eq!(options("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
    assert_eq!(options("GraphQL or REST or gRPC for internal calls?"), ["GraphQL", "REST", "gRPC"]);
    assert_eq!(options("Kafka vs Pulsar vs NATS?"), ["Kafka", "Pulsar", "NATS"]);
    assert_eq!(options("Kafka, Pulsar, or NATS, or SQS?"), ["Kafka", "Pulsar", "NATS", "SQS"]);
    assert_eq!(options("Which queue: Kafka, RabbitMQ or SQS?"), ["Kafka", "RabbitMQ", "SQS"]);
    assert_eq!(
        options("We're choosing between Datadog, Grafana Cloud and self-hosted Prometheus."),
        ["Datadog", "Grafana Cloud", "self-hosted Prometheus"]
    );
}

#[test]
fn between_names_what_the_alternatives_are_for_when_an_or_joins_them() {
    assert_eq!(
        options("Kafka or RabbitMQ for the order events between checkout and fulfilment?"),
        ["Kafka", "RabbitMQ"]
    );
    assert_eq!(
        options("Should we use NATS JetStream or Kafka between the ingest workers and the indexer?"),
        ["NATS JetStream", "Kafka"]
    );
    assert_eq!(
        options("We must choose between append-only Postgres tables and a dedicated event store for the audit log."),
        ["append-only Postgres tables", "dedicated event store"],
        "with no 'or', between names the options"
    );
}

#[test]
fn a_preposition_the_alternatives_share_is_no_part_of_them() {
    assert_eq!(
        options("Should the order service talk to the inventory service over gRPC or over REST?"),
        ["gRPC", "REST"]
    );
    assert_eq!(
        options("Should we cache sessions in Redis, in Memcached or in Postgres?"),
        ["Redis", "Memcached", "Postgres"]
    );
    assert_eq!(
        options("Should we store uploaded files on S3 or on our own MinIO cluster?"),
        ["S3", "our own MinIO cluster"]
    );
    assert_eq!(options("Should we require MFA for every login or only for admins?"), ["every login", "admins"]);
}

#[test]
fn a_lone_qualifier_shares_the_other_options_noun() {
    assert_eq!(
        options("Blue-green or canary deployments for the payments API?"),
        ["Blue-green deployments", "canary deployments"]
    );
    assert_eq!(options("Should we run self-hosted or managed Kafka?"), ["self-hosted Kafka", "managed Kafka"]);
    assert_eq!(options("Self-hosted Kafka or Confluent Cloud?"), ["Self-hosted Kafka", "Confluent Cloud"]);
    assert_eq!(options("Should our apps be native or Flutter?"), ["native", "Flutter"], "a name is no noun to share");
}

#[test]
fn do_we_need_x_or_is_y_enough_weighs_both() {
    assert_eq!(
        options("Do we need Kafka, or is Postgres LISTEN/NOTIFY enough for our job queue?"),
        ["Kafka", "Postgres LISTEN/NOTIFY"]
    );
    assert_eq!(
        options("Do we need a service mesh or are Kubernetes network policies enough?"),
        ["service mesh", "Kubernetes network policies"]
    );
    assert_eq!(
        options("Do we need Elasticsearch or is Postgres full-text search good enough?"),
        ["Elasticsearch", "Postgres full-text search"]
    );
}

#[test]
fn a_named_product_or_technology_is_kept_whole() {
    assert_eq!(
        options("Should product search use Elasticsearch or Postgres full-text search?"),
        ["Elasticsearch", "Postgres full-text search"]
    );
    assert_eq!(
        options("Should we migrate from Jenkins to GitHub Actions or GitLab CI?")[..2],
        ["GitHub Actions", "GitLab CI"]
    );
    assert_eq!(
        options("Should we authenticate partners with API keys, OAuth client credentials or mutual TLS?")[..3],
        ["API keys", "OAuth client credentials", "mutual TLS"]
    );
    assert_eq!(
        options("Terraform, Pulumi, or stay with hand-written CloudFormation?"),
        ["Terraform", "Pulumi", "CloudFormation"]
    );
}

#[test]
fn courses_of_action_stay_whole() {
    assert_eq!(
        options(
            "Should mini-redis keep one Mutex-protected HashMap, shard the keyspace across several locks, or give \
             each shard its own task with message passing?"
        ),
        [
            "keep one Mutex-protected HashMap",
            "shard the keyspace across several locks",
            "give each shard its own task with message passing"
        ]
    );
    assert_eq!(
        options("Should we rewrite the importer, split it into two jobs, or buy a vendor tool for the sync?"),
        ["rewrite the importer", "split it into two jobs", "buy a vendor tool"]
    );
    assert_eq!(
        options("Should we split the billing service out of the monolith, or keep billing as a module inside it?"),
        ["split the billing service out of the monolith", "keep billing as a module"],
        "'inside it' only points back into the question"
    );
    assert_eq!(
        options("Should we self-host Prometheus, Grafana and Loki, or pay for Datadog?"),
        ["self-host Prometheus, Grafana and Loki", "pay for Datadog"]
    );
    assert_eq!(
        options(
            "Should EU customers' data stay in an EU-only region, or may we replicate it to our US region for failover?"
        ),
        ["stay in an EU-only region", "replicate it to our US region"],
        "who is asked is no part of the first; the second's own asking words none of it"
    );
    assert_eq!(
        options("Should we hire a contractor or train our team in Kubernetes?"),
        ["hire a contractor", "train our team in Kubernetes"]
    );
    assert_eq!(options("Build or buy for the internal admin dashboard?"), ["Build", "buy"]);
    // A list of names stays one.
    assert_eq!(options("Should we use React, Vue, or Svelte for the dashboard?"), ["React", "Vue", "Svelte"]);
}

#[test]
fn courses_of_action_that_only_choose_a_thing_are_the_things() {
    assert_eq!(
        options("Should we move our services to Kubernetes, or keep deploying them to VMs with systemd?"),
        ["Kubernetes", "VMs with systemd"]
    );
    assert_eq!(options("Should we use Kafka or migrate to Pulsar?"), ["Kafka", "Pulsar"]);
    assert_eq!(options("Should we use Redis or keep everything in Postgres?"), ["Redis", "Postgres"]);
    assert_eq!(options("Is it worth moving to Kubernetes or should we stay on VMs?"), ["Kubernetes", "VMs"]);
    assert_eq!(
        options("Should we adopt Argo CD, or stay with push-based deploys from CI?"),
        ["Argo CD", "push-based deploys from CI"],
        "only a qualifier right before a name is left out of what is kept"
    );
    assert_eq!(options("Should we build it ourselves or buy Retool?"), ["build it ourselves", "buy Retool"]);
}

#[test]
fn keeping_what_exists_stays_a_way_when_the_question_implies_it() {
    let kept_in = |question: &str| {
        let read = read(question);
        (read.options.len() > read.named.len()).then(|| read.options.last().cloned()).flatten()
    };
    assert_eq!(
        kept_in("Should mini-redis persist data with an append-only file or periodic snapshots?").as_deref(),
        Some(KEEP)
    );
    assert_eq!(kept_in("Should we migrate from MySQL to Postgres or CockroachDB?").as_deref(), Some("Keep MySQL"));
    assert_eq!(
        kept_in("Should we rewrite the billing engine from Ruby to Go or to Kotlin?").as_deref(),
        Some("Keep Ruby")
    );
    assert_eq!(kept_in("Should we deploy using Kubernetes or Nomad?").as_deref(), Some(KEEP));
    // A choice between things, or one that already keeps what exists, implies nothing more.
    assert_eq!(kept_in("Should we use Redis or Postgres for caching?"), None);
    assert_eq!(kept_in("REST vs GraphQL for the public API"), None);
    assert_eq!(kept_in("Should we keep session tokens in localStorage or httpOnly cookies?"), None);
    assert_eq!(kept_in("Do we adopt Terraform, Pulumi or stay with hand-written CloudFormation?"), None);
    assert_eq!(
        kept_in("Should mini-redis keep one Mutex-protected HashMap, shard the keyspace, or give each shard a task?"),
        None
    );
}

#[test]
fn a_change_weighs_making_it_against_keeping_what_it_leaves() {
    assert_eq!(
        options("Should we move the nightly batch jobs from on-demand EC2 instances to spot instances?"),
        ["Move them to spot instances", "Keep on-demand EC2 instances"]
    );
    assert_eq!(options("Should we move from Scrum to Kanban?"), ["Move to Kanban", "Keep Scrum"]);
    assert_eq!(options("Should we replace Jira with Linear for planning?"), ["Replace it with Linear", "Keep Jira"]);
    assert_eq!(
        options("Should we replace two-week release branches with trunk-based development behind feature flags?"),
        ["Replace them with trunk-based development behind feature flags", "Keep two-week release branches"]
    );
    assert_eq!(read("Should we move from Scrum to Kanban?").named, ["Kanban", "Scrum"], "the things changed");
}

#[test]
fn is_it_worth_weighs_doing_it_against_keeping_what_is() {
    assert_eq!(
        options("Is it worth migrating our session store from Memcached to Redis?"),
        ["Migrate it to Redis", "Keep Memcached"]
    );
    assert_eq!(
        options("Is it worth splitting the frontend into micro-frontends?"),
        ["Split the frontend into micro-frontends", KEEP]
    );
    assert_eq!(options("Would it be worth the effort to port the parser to Rust?"), ["Port the parser to Rust", KEEP]);
    assert_eq!(options("Is it worth it to move from MySQL to Postgres?"), ["Move to Postgres", "Keep MySQL"]);
    assert_eq!(
        options("Is it worth dockerising the old cron jobs?"),
        ["Dockerising the old cron jobs", KEEP],
        "a verb not known is left as written"
    );
}

#[test]
fn other_languages_name_options_too() {
    assert_eq!(options("Sollen wir für das neue Backend Go oder Kotlin nehmen?"), ["Go", "Kotlin"]);
    assert_eq!(options("Monolithe ou microservices ?"), ["Monolithe", "microservices"]);
    assert_eq!(options("¿Deberíamos usar GraphQL, REST o gRPC para la API pública?"), ["GraphQL", "REST", "gRPC"]);
    assert_eq!(options("Meglio usare Kafka o RabbitMQ o NATS?"), ["Kafka", "RabbitMQ", "NATS"]);
    assert_eq!(options("Kubernetes ou máquinas virtuais para uma equipe?"), ["Kubernetes", "máquinas virtuais"]);
    assert!(read("Como fazer deploy sem tirar o serviço do ar?").named.is_empty(), "Portuguese 'o' is 'the'");
    assert_eq!(options("キャッシュにはRedisとMemcachedのどちらを使うべきですか？"), ["Redis", "Memcached"]);
    assert_eq!(options("RedisかMemcachedか、どちらがいいですか？"), ["Redis", "Memcached"]);
    assert_eq!(options("我们应该用Redis还是Memcached？"), ["Redis", "Memcached"]);
    assert_eq!(options("我们应该用单体还是微服务？"), ["单体", "微服务"]);
    assert!(read("个人信息或许需要加密吗？").named.is_empty(), "或许 is 'perhaps'");
    assert!(options("個人情報を含むログはどのくらいの期間保存すべきですか？").is_empty());
}

#[test]
fn no_connector_means_no_options() {
    assert!(options("How should we structure the plugin system?").is_empty());
}

#[test]
fn yes_no_questions_weigh_the_proposal_against_keeping_what_we_have() {
    assert_eq!(options("Should we adopt event sourcing?"), ["Adopt event sourcing", KEEP]);
    assert_eq!(options("Our bill doubled; should we move to spot instances?"), ["Move to spot instances", KEEP]);
    assert_eq!(options("Is it safe to run plugins in-process?"), ["Yes", "No"]);
    assert_eq!(options("Faut-il migrer notre monolithe vers des microservices ?"), ["Yes", "No"]);
    assert!(options("What should we do?").is_empty());
    let long = options(&format!("Should we {}?", "really ".repeat(30)));
    assert!(long[0].chars().count() <= PROPOSAL_CHARS, "{long:?}");
}

/// Lowercase words, for comparing an option with the question it came from.
fn plain(text: &str) -> String {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Pieces of questions: the words the reader looks for, names, and any short word.
fn question() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("Should we "),
        Just("Is it worth "),
        Just("Do we need "),
        Just("use "),
        Just("keep "),
        Just("stay with "),
        Just("moving "),
        Just(" or "),
        Just(" vs "),
        Just(", "),
        Just(" between "),
        Just(" and "),
        Just(" in "),
        Just(" from "),
        Just(" to "),
        Just(" is "),
        Just(" enough"),
        Just("Redis "),
        Just("NATS JetStream "),
        Just("the order service "),
        Just("?"),
    ]
    .prop_map(str::to_string);
    let word = "[a-zA-Z]{1,8} ".prop_map(|w| w);
    prop::collection::vec(prop_oneof![piece, word], 1..16).prop_map(|pieces| pieces.concat())
}

/// Names a question may offer, none holding another.
const NAMES: &[&str] = &[
    "Redis",
    "Postgres",
    "NATS JetStream",
    "Kafka",
    "Go",
    "Rust",
    "gRPC",
    "REST",
    "Terraform",
    "Pulumi",
    "Elasticsearch",
    "SQLite",
    "GitHub Actions",
    "Memcached",
    "bare metal",
    "spot instances",
];

/// A question offering `names` in one of the shapes the reader knows: an opener and
/// the preposition it gives each name, a connector before the last name, a tail.
fn offering() -> impl Strategy<Value = (String, Vec<String>)> {
    let names = prop::sample::subsequence(NAMES, 2..=4).prop_shuffle();
    const OPENERS: &[(&str, &str)] = &[
        ("Should we use ", ""),
        ("Do we adopt ", ""),
        ("", ""),
        ("Which one: ", ""),
        ("Should the API team pick ", ""),
        ("Should we cache sessions ", "in "),
        ("Should we deploy ", "on "),
    ];
    let opener = prop::sample::select(OPENERS);
    let last = prop::sample::select(&[" or ", " vs ", " versus ", ", or ", " or stay with "][..]);
    let tail = prop::sample::select(&["?", " for the new service?", " between the web app and the workers?"][..]);
    (names, opener, last, tail).prop_map(|(names, (opener, preposition), last, tail)| {
        let each: Vec<String> = names.iter().map(|n| format!("{preposition}{n}")).collect();
        let (first, end) = each.split_at(each.len() - 1);
        let end = if last.contains("stay") { names[names.len() - 1] } else { end[0].as_str() };
        let question = format!("{opener}{}{last}{end}{tail}", first.join(", "));
        (question, names.iter().map(|n| n.to_string()).collect())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn an_option_is_never_the_whole_question(question in question()) {
        let whole = plain(&question);
        for option in options(&question) {
            let option = plain(&option);
            prop_assert!(option != whole, "{question:?} → {option:?}");
            let long = option.split_whitespace().count() > OPTION_WORDS;
            prop_assert!(!(long && option.contains(&whole)), "{question:?} → {option:?}");
        }
    }

    #[test]
    fn each_name_offered_is_an_option_of_its_own((question, names) in offering()) {
        let read = options(&question);
        for name in &names {
            prop_assert!(read.contains(name), "{question:?} → {read:?}: no {name:?}");
        }
        for option in &read {
            let held = names.iter().filter(|n| plain(option).contains(&plain(n))).count();
            prop_assert!(held <= 1, "{question:?} → {option:?} holds {held} of {names:?}");
        }
    }
}

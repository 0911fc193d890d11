//! Manifests: the notable dependencies they declare. Each format is read with its real
//! parser (TOML, JSON, XML) or, for the line formats (go.mod, requirements, Gemfile,
//! Gradle), line by line. What counts as notable — frameworks, datastores, caches,
//! queues, search engines, cloud SDKs — is decided by one table, `KNOWN`, so teaching
//! the reader a package is one line there.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use quick_xml::events::{BytesRef, Event};
use regex::Regex;
use serde_json::Value as Json;

use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue, Search};
use crate::model::{Dependency, DependencyKind};

/// Whose package names a manifest uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ecosystem {
    Rust,
    Npm,
    Python,
    Go,
    Java,
    Ruby,
    Php,
}

/// A notable package: its name (or a prefix, when the pattern ends in `*`), its kind, and
/// what it brings when the package alone decides that ("postgres" for a Postgres driver).
/// Packages that serve several backends (ORMs, query builders) have no detail here: their
/// features or extras may name the backend (`BACKENDS`). Names compare ignoring ASCII case.
type Known = (&'static str, DependencyKind, Option<&'static str>);

const KNOWN: &[(Ecosystem, &[Known])] = &[
    (
        Ecosystem::Rust,
        &[
            ("axum", Framework, Some("web")),
            ("actix-web", Framework, Some("web")),
            ("rocket", Framework, Some("web")),
            ("warp", Framework, Some("web")),
            ("tonic", Framework, Some("gRPC")),
            ("sqlx", Database, None),
            ("diesel", Database, None),
            ("sea-orm", Database, None),
            ("postgres", Database, Some("postgres")),
            ("tokio-postgres", Database, Some("postgres")),
            ("deadpool-postgres", Database, Some("postgres")),
            ("rusqlite", Database, Some("sqlite")),
            ("mysql", Database, Some("mysql")),
            ("mongodb", Database, Some("mongodb")),
            ("redis", Cache, Some("redis")),
            ("deadpool-redis", Cache, Some("redis")),
            ("rdkafka", Queue, Some("kafka")),
            ("lapin", Queue, Some("rabbitmq")),
            ("async-nats", Queue, Some("nats")),
            ("tantivy", Search, Some("tantivy")),
            ("elasticsearch", Search, Some("elasticsearch")),
            ("meilisearch-sdk", Search, Some("meilisearch")),
            ("aws-config", Cloud, Some("aws")),
            ("aws-sdk-*", Cloud, Some("aws")),
            ("google-cloud-*", Cloud, Some("google cloud")),
            ("azure_*", Cloud, Some("azure")),
        ],
    ),
    (
        Ecosystem::Npm,
        &[
            ("express", Framework, Some("web")),
            ("fastify", Framework, Some("web")),
            ("koa", Framework, Some("web")),
            ("@nestjs/core", Framework, Some("web")),
            ("next", Framework, Some("React")),
            ("nuxt", Framework, Some("Vue")),
            ("react", Framework, Some("UI")),
            ("vue", Framework, Some("UI")),
            ("@angular/core", Framework, Some("UI")),
            ("svelte", Framework, Some("UI")),
            ("pg", Database, Some("postgres")),
            ("postgres", Database, Some("postgres")),
            ("mysql2", Database, Some("mysql")),
            ("mongodb", Database, Some("mongodb")),
            ("mongoose", Database, Some("mongodb")),
            ("better-sqlite3", Database, Some("sqlite")),
            ("sqlite3", Database, Some("sqlite")),
            ("prisma", Database, None),
            ("@prisma/client", Database, None),
            ("typeorm", Database, None),
            ("sequelize", Database, None),
            ("knex", Database, None),
            ("redis", Cache, Some("redis")),
            ("ioredis", Cache, Some("redis")),
            ("kafkajs", Queue, Some("kafka")),
            ("amqplib", Queue, Some("rabbitmq")),
            ("bullmq", Queue, Some("redis")),
            ("nats", Queue, Some("nats")),
            ("@elastic/elasticsearch", Search, Some("elasticsearch")),
            ("meilisearch", Search, Some("meilisearch")),
            ("aws-sdk", Cloud, Some("aws")),
            ("@aws-sdk/*", Cloud, Some("aws")),
            ("@google-cloud/*", Cloud, Some("google cloud")),
            ("@azure/*", Cloud, Some("azure")),
        ],
    ),
    (
        // Python names are compared after PEP 503 normalisation (`_` and `.` are `-`).
        Ecosystem::Python,
        &[
            ("django", Framework, Some("web")),
            ("flask", Framework, Some("web")),
            ("fastapi", Framework, Some("web")),
            ("psycopg2", Database, Some("postgres")),
            ("psycopg2-binary", Database, Some("postgres")),
            ("psycopg", Database, Some("postgres")),
            ("asyncpg", Database, Some("postgres")),
            ("pymysql", Database, Some("mysql")),
            ("mysqlclient", Database, Some("mysql")),
            ("pymongo", Database, Some("mongodb")),
            ("motor", Database, Some("mongodb")),
            ("sqlalchemy", Database, None),
            ("redis", Cache, Some("redis")),
            ("celery", Queue, None),
            ("kafka-python", Queue, Some("kafka")),
            ("confluent-kafka", Queue, Some("kafka")),
            ("aiokafka", Queue, Some("kafka")),
            ("pika", Queue, Some("rabbitmq")),
            ("elasticsearch", Search, Some("elasticsearch")),
            ("boto3", Cloud, Some("aws")),
            ("google-cloud-*", Cloud, Some("google cloud")),
            ("azure-*", Cloud, Some("azure")),
        ],
    ),
    (
        // Module paths; a prefix also covers major-version suffixes (`/v5`) and submodules.
        Ecosystem::Go,
        &[
            ("github.com/gin-gonic/gin", Framework, Some("web")),
            ("github.com/labstack/echo*", Framework, Some("web")),
            ("github.com/gofiber/fiber*", Framework, Some("web")),
            ("google.golang.org/grpc", Framework, Some("gRPC")),
            ("github.com/lib/pq", Database, Some("postgres")),
            ("github.com/jackc/pgx*", Database, Some("postgres")),
            ("gorm.io/driver/postgres", Database, Some("postgres")),
            ("gorm.io/driver/mysql", Database, Some("mysql")),
            ("gorm.io/driver/sqlite", Database, Some("sqlite")),
            ("gorm.io/gorm", Database, None),
            ("github.com/go-sql-driver/mysql", Database, Some("mysql")),
            ("github.com/mattn/go-sqlite3", Database, Some("sqlite")),
            ("go.mongodb.org/mongo-driver*", Database, Some("mongodb")),
            ("github.com/redis/go-redis*", Cache, Some("redis")),
            ("github.com/go-redis/redis*", Cache, Some("redis")),
            ("github.com/segmentio/kafka-go", Queue, Some("kafka")),
            ("github.com/IBM/sarama", Queue, Some("kafka")),
            ("github.com/Shopify/sarama", Queue, Some("kafka")),
            ("github.com/rabbitmq/amqp091-go", Queue, Some("rabbitmq")),
            ("github.com/nats-io/nats.go", Queue, Some("nats")),
            ("github.com/elastic/go-elasticsearch*", Search, Some("elasticsearch")),
            ("github.com/aws/aws-sdk-go*", Cloud, Some("aws")),
            ("cloud.google.com/go*", Cloud, Some("google cloud")),
            ("github.com/Azure/azure-sdk-for-go*", Cloud, Some("azure")),
        ],
    ),
    (
        // `groupId:artifactId`, from Maven and Gradle alike.
        Ecosystem::Java,
        &[
            ("org.springframework.boot:*", Framework, Some("Spring Boot")),
            ("io.quarkus:*", Framework, Some("Quarkus")),
            ("org.postgresql:postgresql", Database, Some("postgres")),
            ("mysql:mysql-connector-java", Database, Some("mysql")),
            ("com.mysql:mysql-connector-j", Database, Some("mysql")),
            ("org.xerial:sqlite-jdbc", Database, Some("sqlite")),
            ("org.mongodb:*", Database, Some("mongodb")),
            ("org.hibernate*", Database, None),
            ("redis.clients:jedis", Cache, Some("redis")),
            ("io.lettuce:*", Cache, Some("redis")),
            ("org.apache.kafka:*", Queue, Some("kafka")),
            ("org.springframework.kafka:*", Queue, Some("kafka")),
            ("com.rabbitmq:*", Queue, Some("rabbitmq")),
            ("co.elastic.clients:*", Search, Some("elasticsearch")),
            ("software.amazon.awssdk:*", Cloud, Some("aws")),
            ("com.amazonaws:*", Cloud, Some("aws")),
            ("com.google.cloud:*", Cloud, Some("google cloud")),
            ("com.azure:*", Cloud, Some("azure")),
        ],
    ),
    (
        Ecosystem::Ruby,
        &[
            ("rails", Framework, Some("web")),
            ("sinatra", Framework, Some("web")),
            ("pg", Database, Some("postgres")),
            ("mysql2", Database, Some("mysql")),
            ("sqlite3", Database, Some("sqlite")),
            ("mongoid", Database, Some("mongodb")),
            ("redis", Cache, Some("redis")),
            ("sidekiq", Queue, Some("redis")),
            ("bunny", Queue, Some("rabbitmq")),
            ("elasticsearch", Search, Some("elasticsearch")),
            ("aws-sdk", Cloud, Some("aws")),
            ("aws-sdk-*", Cloud, Some("aws")),
            ("google-cloud-*", Cloud, Some("google cloud")),
        ],
    ),
    (
        Ecosystem::Php,
        &[
            ("laravel/framework", Framework, Some("web")),
            ("symfony/*", Framework, Some("Symfony")),
            ("doctrine/orm", Database, None),
            ("mongodb/mongodb", Database, Some("mongodb")),
            ("predis/predis", Cache, Some("redis")),
            ("php-amqplib/php-amqplib", Queue, Some("rabbitmq")),
            ("elasticsearch/elasticsearch", Search, Some("elasticsearch")),
            ("aws/aws-sdk-php", Cloud, Some("aws")),
        ],
    ),
];

/// The backends a multi-backend package's features or extras can name, by the word the
/// feature contains: sqlx `postgres`, sea-orm `sqlx-mysql`, SQLAlchemy `postgresql`,
/// Celery `redis`.
const BACKENDS: &[&str] = &["postgres", "mysql", "sqlite", "mssql", "redis"];

/// The manifest formats, each known by its file name.
#[derive(Debug, Clone, Copy)]
enum Format {
    Cargo,
    PackageJson,
    Pyproject,
    Requirements,
    GoMod,
    Pom,
    Gradle,
    Gemfile,
    Composer,
}

/// A dependency as a manifest declares it, before the table says whether it is notable.
#[derive(Debug)]
struct Declared {
    name: String,
    version: Option<String>,
    /// Cargo features or Python extras, which may name the backend.
    features: Vec<String>,
}

impl Declared {
    fn new(name: impl Into<String>, version: Option<String>) -> Declared {
        Declared { name: name.into(), version, features: Vec::new() }
    }
}

/// Whether a file, by its name, is a manifest this module reads.
pub fn is_manifest(file_name: &str) -> bool {
    format(file_name).is_some()
}

/// The notable dependencies a manifest declares, grouped by kind, then by name.
pub fn dependencies(relative: &str, text: &str) -> Result<Vec<Dependency>, String> {
    let format = format(relative).ok_or("not a manifest this reader knows")?;
    let declared = match format {
        Format::Cargo => cargo(text)?,
        Format::PackageJson => package_json(text)?,
        Format::Pyproject => pyproject(text)?,
        Format::Requirements => requirements(text),
        Format::GoMod => go_mod(text),
        Format::Pom => pom(text)?,
        Format::Gradle => gradle(text),
        Format::Gemfile => gemfile(text),
        Format::Composer => composer(text)?,
    };
    Ok(notable(format.ecosystem(), relative, declared))
}

/// The format a file name (or a path ending in one) names.
fn format(file_name: &str) -> Option<Format> {
    let name = file_name.rsplit('/').next().unwrap_or(file_name);
    let format = match name {
        "Cargo.toml" => Format::Cargo,
        "package.json" => Format::PackageJson,
        "pyproject.toml" => Format::Pyproject,
        "go.mod" => Format::GoMod,
        "pom.xml" => Format::Pom,
        "build.gradle" | "build.gradle.kts" => Format::Gradle,
        "Gemfile" => Format::Gemfile,
        "composer.json" => Format::Composer,
        _ if is_requirements(name) => Format::Requirements,
        _ => return None,
    };
    Some(format)
}

/// `requirements.txt`, or a variant such as `requirements-dev.txt` / `requirements_test.txt`.
fn is_requirements(name: &str) -> bool {
    match name.strip_prefix("requirements").and_then(|rest| rest.strip_suffix(".txt")) {
        Some("") => true,
        Some(variant) => variant.len() > 1 && variant.starts_with(['-', '_']),
        None => false,
    }
}

impl Format {
    fn ecosystem(self) -> Ecosystem {
        match self {
            Format::Cargo => Ecosystem::Rust,
            Format::PackageJson => Ecosystem::Npm,
            Format::Pyproject | Format::Requirements => Ecosystem::Python,
            Format::GoMod => Ecosystem::Go,
            Format::Pom | Format::Gradle => Ecosystem::Java,
            Format::Gemfile => Ecosystem::Ruby,
            Format::Composer => Ecosystem::Php,
        }
    }
}

impl Ecosystem {
    /// The name as the table compares it.
    fn key(self, name: &str) -> Cow<'_, str> {
        match self {
            Ecosystem::Python => Cow::Owned(name.replace(['_', '.'], "-")),
            _ => Cow::Borrowed(name),
        }
    }

    fn same(self, a: &str, b: &str) -> bool {
        self.key(a).eq_ignore_ascii_case(&self.key(b))
    }
}

/// The declared dependencies the table knows, one entry per package.
fn notable(ecosystem: Ecosystem, manifest: &str, declared: Vec<Declared>) -> Vec<Dependency> {
    let mut found: Vec<Dependency> = Vec::new();
    for each in declared {
        let Some((kind, label)) = known(ecosystem, &each.name) else { continue };
        let detail = label.map(str::to_string).or_else(|| backends(&each.features));
        match found.iter_mut().find(|dependency| ecosystem.same(&dependency.name, &each.name)) {
            // Declared twice (`[workspace.dependencies]` and `[dependencies]`, PEP 621 and
            // Poetry): one entry, with what either declaration says.
            Some(seen) => {
                seen.version = seen.version.take().or(each.version);
                seen.detail = seen.detail.take().or(detail);
            }
            None => found.push(Dependency {
                name: each.name,
                version: each.version,
                kind,
                detail,
                manifest: manifest.to_string(),
            }),
        }
    }
    found.sort_by_cached_key(|dependency| (dependency.kind, dependency.name.to_ascii_lowercase()));
    found
}

/// The table's kind and detail for a package, if it is notable.
fn known(ecosystem: Ecosystem, name: &str) -> Option<(DependencyKind, Option<&'static str>)> {
    let key = ecosystem.key(name);
    KNOWN
        .iter()
        .filter(|(table, _)| *table == ecosystem)
        .flat_map(|(_, rows)| rows.iter())
        .find(|(pattern, ..)| matches(pattern, &key))
        .map(|&(_, kind, detail)| (kind, detail))
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix)),
        None => name.eq_ignore_ascii_case(pattern),
    }
}

/// The backends the features name, in `BACKENDS` order: "postgres", "mysql, sqlite".
fn backends(features: &[String]) -> Option<String> {
    let named: Vec<&str> = BACKENDS
        .iter()
        .copied()
        .filter(|backend| features.iter().any(|feature| feature.to_ascii_lowercase().contains(backend)))
        .collect();
    (!named.is_empty()).then(|| named.join(", "))
}

/// The version as written, without a leading `^`, `~`, `~>`, `=` or `==` when what
/// follows is one plain version: `^1.2` is "1.2", but `>=1.2, <2` and `~=1.2` stay as
/// written. `None` when nothing is written.
fn plain_version(written: &str) -> Option<String> {
    let written = written.trim();
    if written.is_empty() {
        return None;
    }
    let bare = ["==", "~>", "^", "~", "="].iter().find_map(|operator| written.strip_prefix(operator));
    match bare.map(str::trim) {
        Some(bare) if is_plain(bare) => Some(bare.to_string()),
        _ => Some(written.to_string()),
    }
}

fn is_plain(version: &str) -> bool {
    version.starts_with(|c: char| c.is_ascii_digit())
        && !version.contains(|c: char| c.is_whitespace() || matches!(c, ',' | '<' | '>' | '=' | '|'))
}

// ---- TOML: Cargo.toml, pyproject.toml -------------------------------------------------

fn parse_toml(text: &str) -> Result<toml::Table, String> {
    toml::from_str(text).map_err(|err: toml::de::Error| {
        let message = err.message().trim();
        match err.span() {
            Some(span) => format!("not valid TOML: line {}: {message}", line_of(text, span.start)),
            None => format!("not valid TOML: {message}"),
        }
    })
}

/// The 1-based line holding a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let before = &text.as_bytes()[..offset.min(text.len())];
    before.iter().filter(|&&byte| byte == b'\n').count() + 1
}

/// `[dependencies]`, `[workspace.dependencies]` and `[target.'cfg(…)'.dependencies]`;
/// dev- and build-dependencies are tools, not what the project runs on.
fn cargo(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_toml(text)?;
    let workspace = manifest.get("workspace").and_then(|workspace| workspace.get("dependencies"));
    let targets = manifest
        .get("target")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|targets| targets.values())
        .filter_map(|target| target.get("dependencies"));
    let sections = [workspace, manifest.get("dependencies")]
        .into_iter()
        .flatten()
        .chain(targets)
        .filter_map(toml::Value::as_table);
    Ok(sections.flat_map(|section| section.iter().map(|(name, spec)| toml_declared(name, spec))).collect())
}

/// PEP 621 `[project] dependencies` and Poetry's `[tool.poetry.dependencies]`.
fn pyproject(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_toml(text)?;
    let pep621 = manifest
        .get("project")
        .and_then(|project| project.get("dependencies"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .filter_map(requirement);
    let poetry = manifest
        .get("tool")
        .and_then(|tool| tool.get("poetry"))
        .and_then(|poetry| poetry.get("dependencies"))
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .map(|(name, spec)| toml_declared(name, spec));
    Ok(pep621.chain(poetry).collect())
}

/// `name = "version"` or `name = { version = …, features = […] }`, the way Cargo and
/// Poetry both write dependencies (Poetry says `extras`). A path or git dependency has
/// no version worth naming; a renamed Cargo dependency is known by its `package`.
fn toml_declared(name: &str, spec: &toml::Value) -> Declared {
    let Some(table) = spec.as_table() else {
        return Declared::new(name, spec.as_str().and_then(plain_version));
    };
    let local = table.contains_key("path") || table.contains_key("git");
    let version = table.get("version").and_then(toml::Value::as_str).filter(|_| !local).and_then(plain_version);
    let features = ["features", "extras"]
        .iter()
        .filter_map(|key| table.get(*key))
        .filter_map(toml::Value::as_array)
        .flatten()
        .filter_map(toml::Value::as_str)
        .map(str::to_string)
        .collect();
    let name = table.get("package").and_then(toml::Value::as_str).unwrap_or(name);
    Declared { name: name.to_string(), version, features }
}

// ---- JSON: package.json, composer.json ------------------------------------------------

fn parse_json(text: &str) -> Result<Json, String> {
    let manifest: Json = serde_json::from_str(text).map_err(|err| format!("not valid JSON: {err}"))?;
    if manifest.is_object() { Ok(manifest) } else { Err("the top level is not a JSON object".into()) }
}

fn json_section<'a>(manifest: &'a Json, section: &str) -> impl Iterator<Item = (&'a String, &'a Json)> {
    manifest.get(section).and_then(Json::as_object).into_iter().flatten()
}

/// Specs that point somewhere rather than name a version: paths, git, URLs, workspaces,
/// and GitHub's `user/repo` shorthand (any `/`).
const NPM_SOURCES: &[&str] = &["file:", "link:", "portal:", "workspace:", "git", "github:", "http:", "https:"];

/// `dependencies` and `devDependencies`: front-end frameworks are usually
/// devDependencies because the bundler ships them, so both count.
fn package_json(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_json(text)?;
    let npm_version = |spec: &Json| {
        let spec = spec.as_str()?;
        let elsewhere = spec.contains('/') || NPM_SOURCES.iter().any(|source| spec.starts_with(source));
        if elsewhere { None } else { plain_version(spec) }
    };
    Ok(["dependencies", "devDependencies"]
        .iter()
        .flat_map(|section| json_section(&manifest, section))
        .map(|(name, spec)| Declared::new(name, npm_version(spec)))
        .collect())
}

/// `require`; `require-dev` holds tools (PHP has no bundler shipping them).
fn composer(text: &str) -> Result<Vec<Declared>, String> {
    let manifest = parse_json(text)?;
    Ok(json_section(&manifest, "require")
        .map(|(name, spec)| Declared::new(name, spec.as_str().and_then(plain_version)))
        .collect())
}

// ---- Line formats: requirements*.txt, go.mod, build.gradle(.kts), Gemfile -------------

static REQUIREMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*(.*)$").expect("the pattern is valid")
});

/// A PEP 508 requirement, `name[extras] specifier ; marker` or `name @ url`; `None` for
/// anything else (a bare path or URL).
fn requirement(line: &str) -> Option<Declared> {
    let captures = REQUIREMENT.captures(line.trim())?;
    let specifier = captures[3].split(';').next().unwrap_or_default().trim();
    let version = match specifier.chars().next() {
        None | Some('@') => None,
        Some('(') => plain_version(specifier.trim_start_matches('(').trim_end_matches(')')),
        Some('<' | '>' | '=' | '!' | '~') => plain_version(specifier),
        Some(_) => return None,
    };
    let features = captures
        .get(2)
        .map_or(Vec::new(), |extras| extras.as_str().split(',').map(|extra| extra.trim().to_string()).collect());
    Some(Declared { name: captures[1].to_string(), version, features })
}

/// pip's format: `\` continues a line, `#` after whitespace starts a comment, and lines
/// starting with `-` are options (`-r other.txt`, `-e path`, `--index-url`).
fn requirements(text: &str) -> Vec<Declared> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    joined
        .lines()
        .map(without_comment)
        // A trailing option (`--hash=…`) belongs to pip, not to the requirement.
        .map(|line| line.split(" --").next().unwrap_or_default().trim())
        .filter(|line| !line.starts_with('-'))
        .filter_map(requirement)
        .collect()
}

fn without_comment(line: &str) -> &str {
    let comment = line.match_indices('#').find(|&(at, _)| at == 0 || line[..at].ends_with(char::is_whitespace));
    comment.map_or(line, |(at, _)| &line[..at])
}

/// `require path version` lines and `require ( … )` blocks. Requirements marked
/// `// indirect` are what the dependencies need, not what the project chose.
fn go_mod(text: &str) -> Vec<Declared> {
    let mut in_block = false;
    let mut declared = Vec::new();
    for line in text.lines() {
        let (code, comment) = line.split_once("//").unwrap_or((line, ""));
        let code = code.trim();
        let spec = if in_block {
            in_block = code != ")";
            code
        } else if let Some(rest) = code.strip_prefix("require") {
            in_block = rest.trim() == "(";
            rest
        } else {
            continue;
        };
        if let [path, version] = spec.split_whitespace().collect::<Vec<_>>()[..]
            && !comment.contains("indirect")
        {
            declared.push(Declared::new(path, Some(version.to_string())));
        }
    }
    declared
}

static GRADLE: LazyLock<Regex> = LazyLock::new(|| {
    // configuration, an optional `(` and `platform(`, then "group:artifact[:version[:…]]".
    Regex::new(r#"^\s*(\w+)\s*\(?\s*(?:\w+\s*\(\s*)?["']([^"'\s:]+):([^"'\s:]+)(?::([^"'\s:@]+))?[^"']*["']"#)
        .expect("the pattern is valid")
});

/// Dependencies in string notation, Groovy or Kotlin DSL. Test configurations are left
/// out like Cargo's dev-dependencies; version catalogs (`libs.x`) name no coordinates.
fn gradle(text: &str) -> Vec<Declared> {
    text.lines()
        .filter_map(|line| GRADLE.captures(line))
        .filter(|captures| !captures[1].starts_with("test") && !captures[1].contains("Test"))
        .map(|captures| {
            let version = captures.get(4).map(|version| version.as_str().to_string());
            Declared::new(format!("{}:{}", &captures[2], &captures[3]), version)
        })
        .collect()
}

static GEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*gem\s*\(?\s*["']([^"']+)["']((?:\s*,\s*["'][^"']*["'])*)"#).expect("the pattern is valid")
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"["']([^"']*)["']"#).expect("the pattern is valid"));

/// `gem "name", "requirement", …` lines; the quoted strings after the name are its version
/// requirements (options such as `require: false` or `git:` come after them).
fn gemfile(text: &str) -> Vec<Declared> {
    text.lines()
        .filter_map(|line| GEM.captures(line))
        .map(|gem| {
            let requirements: Vec<&str> = QUOTED
                .captures_iter(&gem[2])
                .filter_map(|quoted| quoted.get(1))
                .map(|requirement| requirement.as_str().trim())
                .filter(|requirement| !requirement.is_empty())
                .collect();
            let version = match requirements[..] {
                [] => None,
                [one] => plain_version(one),
                _ => Some(requirements.join(", ")),
            };
            Declared::new(&gem[1], version)
        })
        .collect()
}

// ---- XML: pom.xml ----------------------------------------------------------------------

/// A Maven coordinate as the POM writes it.
#[derive(Debug, Default)]
struct Coordinate {
    group: String,
    artifact: String,
    version: Option<String>,
    scope: Option<String>,
}

impl Coordinate {
    fn set(&mut self, field: &str, value: String) {
        match field {
            "groupId" => self.group = value,
            "artifactId" => self.artifact = value,
            "version" => self.version = Some(value),
            "scope" => self.scope = Some(value),
            _ => {}
        }
    }
}

/// What a POM says that matters here: its parent (a Spring Boot parent names the
/// framework and its version), its dependencies, and the properties their versions use.
#[derive(Debug, Default)]
struct Pom {
    version: Option<String>,
    parent: Option<Coordinate>,
    properties: HashMap<String, String>,
    dependencies: Vec<Coordinate>,
}

static PROPERTY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{([^}]+)\}").expect("the pattern is valid"));

impl Pom {
    /// An element opened at `path` (from the root down).
    fn open(&mut self, path: &[String]) {
        match path {
            [project, parent] if project == "project" && parent == "parent" => {
                self.parent = Some(Coordinate::default())
            }
            [project, dependencies, dependency]
                if project == "project" && dependencies == "dependencies" && dependency == "dependency" =>
            {
                self.dependencies.push(Coordinate::default());
            }
            _ => {}
        }
    }

    /// An element at `path` closed, holding `value`.
    fn close(&mut self, path: &[String], value: String) {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        match path[..] {
            ["project", "version"] => self.version = Some(value),
            ["project", "properties", name] => {
                self.properties.insert(name.to_string(), value);
            }
            ["project", "parent", field] => {
                if let Some(parent) = &mut self.parent {
                    parent.set(field, value);
                }
            }
            ["project", "dependencies", "dependency", field] => {
                if let Some(dependency) = self.dependencies.last_mut() {
                    dependency.set(field, value);
                }
            }
            _ => {}
        }
    }

    /// A version with its `${property}` references replaced where this POM defines them.
    fn resolve(&self, version: &str) -> String {
        PROPERTY
            .replace_all(version, |reference: &regex::Captures| {
                let value = match &reference[1] {
                    "project.version" => self.version.as_ref(),
                    name => self.properties.get(name),
                };
                value.cloned().unwrap_or_else(|| reference[0].to_string())
            })
            .into_owned()
    }
}

/// The parent and the dependencies; test-scoped ones are left out like Cargo's
/// dev-dependencies.
fn pom(text: &str) -> Result<Vec<Declared>, String> {
    let pom = read_pom(text)?;
    let runtime = pom.dependencies.iter().filter(|dependency| dependency.scope.as_deref() != Some("test"));
    Ok(pom
        .parent
        .iter()
        .chain(runtime)
        .map(|coordinate| {
            let version = coordinate.version.as_deref().map(|version| pom.resolve(version));
            Declared::new(format!("{}:{}", coordinate.group, coordinate.artifact), version)
        })
        .collect())
}

fn read_pom(text: &str) -> Result<Pom, String> {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut pom = Pom::default();
    let mut path: Vec<String> = Vec::new();
    let mut value = String::new();
    let mut rooted = false;
    loop {
        let event =
            reader.read_event().map_err(|err| format!("not valid XML: {err} (at byte {})", reader.error_position()))?;
        match event {
            Event::Start(start) => {
                let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
                if path.is_empty() && (rooted || name != "project") {
                    return Err(format!("not a Maven POM: <{name}> at the top level"));
                }
                rooted = true;
                path.push(name);
                pom.open(&path);
                value.clear();
            }
            Event::Text(text) => value.push_str(&text.decode().map_err(|err| format!("not valid XML: {err}"))?),
            Event::CData(data) => value.push_str(&data.decode().map_err(|err| format!("not valid XML: {err}"))?),
            Event::GeneralRef(reference) => value.push_str(&entity(&reference)?),
            Event::End(_) => {
                pom.close(&path, std::mem::take(&mut value));
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    match path.last() {
        Some(open) => Err(format!("not valid XML: <{open}> is never closed")),
        None if !rooted => Err("not a Maven POM: no <project> element".into()),
        None => Ok(pom),
    }
}

/// The text a character or predefined entity reference (`&#38;`, `&amp;`) stands for.
fn entity(reference: &BytesRef) -> Result<String, String> {
    let invalid = |err: &dyn std::fmt::Display| format!("not valid XML: {err}");
    if let Some(character) = reference.resolve_char_ref().map_err(|err| invalid(&err))? {
        return Ok(character.to_string());
    }
    let name = reference.decode().map_err(|err| invalid(&err))?;
    quick_xml::escape::resolve_predefined_entity(&name)
        .map(str::to_string)
        .ok_or_else(|| format!("not valid XML: unknown entity &{name};"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dependency(
        name: &str,
        version: Option<&str>,
        kind: DependencyKind,
        detail: Option<&str>,
        manifest: &str,
    ) -> Dependency {
        Dependency {
            name: name.into(),
            version: version.map(str::to_string),
            kind,
            detail: detail.map(str::to_string),
            manifest: manifest.into(),
        }
    }

    /// (name, version, kind, detail) of each dependency found, for compact assertions.
    fn found(relative: &str, text: &str) -> Vec<(String, Option<String>, DependencyKind, Option<String>)> {
        let dependencies = dependencies(relative, text).expect("the manifest parses");
        assert!(dependencies.iter().all(|dependency| dependency.manifest == relative));
        dependencies.into_iter().map(|d| (d.name, d.version, d.kind, d.detail)).collect()
    }

    fn row(
        name: &str,
        version: Option<&str>,
        kind: DependencyKind,
        detail: Option<&str>,
    ) -> (String, Option<String>, DependencyKind, Option<String>) {
        (name.into(), version.map(str::to_string), kind, detail.map(str::to_string))
    }

    #[test]
    fn manifests_are_known_by_name() {
        for name in [
            "Cargo.toml",
            "package.json",
            "pyproject.toml",
            "requirements.txt",
            "requirements-dev.txt",
            "requirements_test.txt",
            "go.mod",
            "pom.xml",
            "build.gradle",
            "build.gradle.kts",
            "Gemfile",
            "composer.json",
            "crates/api/Cargo.toml",
        ] {
            assert!(is_manifest(name), "{name}");
        }
        for name in ["cargo.toml", "Cargo.lock", "package-lock.json", "requirements.in", "requirements-.txt", "go.sum"]
        {
            assert!(!is_manifest(name), "{name}");
        }
    }

    #[test]
    fn sqlx_with_the_postgres_feature_is_a_postgres_database() {
        let text = r#"
[package]
name = "shop"
version = "0.1.0"
edition = "2021"

[dependencies]
axum = "0.7"
sqlx = { version = "0.8", features = ["runtime-tokio", "tls-rustls", "postgres", "macros"] }
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["full"] }
redis = { version = "^0.25", features = ["tokio-comp"] }
aws-sdk-s3 = "1.40.0"
internal = { path = "../internal" }

[dev-dependencies]
testcontainers = "0.20"
tantivy = "0.22"
"#;
        assert_eq!(
            dependencies("Cargo.toml", text),
            Ok(vec![
                dependency("axum", Some("0.7"), Framework, Some("web"), "Cargo.toml"),
                dependency("sqlx", Some("0.8"), Database, Some("postgres"), "Cargo.toml"),
                dependency("redis", Some("0.25"), Cache, Some("redis"), "Cargo.toml"),
                dependency("aws-sdk-s3", Some("1.40.0"), Cloud, Some("aws"), "Cargo.toml"),
            ])
        );
    }

    #[test]
    fn workspace_cargo_toml_reads_workspace_and_target_dependencies() {
        let text = r#"
[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.dependencies]
tokio = { version = "1.38", features = ["full"] }
sea-orm = { version = "~1.0.1", features = ["sqlx-mysql", "sqlx-sqlite", "runtime-tokio-rustls"] }
tonic = "=0.12.1"
pg = { package = "tokio-postgres", version = ">=0.7, <0.8" }
rdkafka = { git = "https://github.com/fede1024/rust-rdkafka", version = "0.36" }

[dependencies]
sea-orm = { workspace = true }

[target.'cfg(unix)'.dependencies]
async-nats = "0.35"

[build-dependencies]
tonic-build = "0.12"
"#;
        assert_eq!(
            found("Cargo.toml", text),
            vec![
                row("tonic", Some("0.12.1"), Framework, Some("gRPC")),
                row("sea-orm", Some("1.0.1"), Database, Some("mysql, sqlite")),
                row("tokio-postgres", Some(">=0.7, <0.8"), Database, Some("postgres")),
                row("async-nats", Some("0.35"), Queue, Some("nats")),
                row("rdkafka", None, Queue, Some("kafka")),
            ]
        );
    }

    #[test]
    fn a_member_of_a_workspace_takes_features_but_no_version() {
        let text = "[dependencies]\ndiesel = { workspace = true, features = [\"postgres\"] }\nazure_core = \"0.20\"\n";
        assert_eq!(
            found("crates/db/Cargo.toml", text),
            vec![
                row("diesel", None, Database, Some("postgres")),
                row("azure_core", Some("0.20"), Cloud, Some("azure"))
            ]
        );
    }

    #[test]
    fn package_json_counts_dev_dependencies_and_skips_local_sources() {
        let text = r#"{
  "name": "storefront",
  "private": true,
  "scripts": { "build": "next build" },
  "dependencies": {
    "next": "14.2.3",
    "express": "^4.19.2",
    "pg": "~8.11.0",
    "@prisma/client": "5.14.0",
    "ioredis": "^5.4.1",
    "@aws-sdk/client-s3": "^3.600.0",
    "lodash": "^4.17.21",
    "shared-ui": "workspace:*",
    "kafkajs": "github:tulios/kafkajs",
    "mongoose": ">=8 <9"
  },
  "devDependencies": {
    "react": "^18.3.1",
    "typescript": "^5.4.5",
    "express": "^4.19.2"
  }
}"#;
        assert_eq!(
            found("web/package.json", text),
            vec![
                row("express", Some("4.19.2"), Framework, Some("web")),
                row("next", Some("14.2.3"), Framework, Some("React")),
                row("react", Some("18.3.1"), Framework, Some("UI")),
                row("@prisma/client", Some("5.14.0"), Database, None),
                row("mongoose", Some(">=8 <9"), Database, Some("mongodb")),
                row("pg", Some("8.11.0"), Database, Some("postgres")),
                row("ioredis", Some("5.4.1"), Cache, Some("redis")),
                row("kafkajs", None, Queue, Some("kafka")),
                row("@aws-sdk/client-s3", Some("3.600.0"), Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn pyproject_reads_pep_621_and_poetry() {
        let text = r#"
[project]
name = "billing"
version = "1.0.0"
requires-python = ">=3.11"
dependencies = [
    "Django>=4.2,<5.0",
    "psycopg[binary]==3.1.19",
    "SQLAlchemy[postgresql_asyncpg]~=2.0",
    "celery[redis] (>=5.3)",
    "google-cloud-storage; python_version >= '3.11'",
    "requests>=2.31",
    "elasticsearch @ https://example.com/elasticsearch-8.0.0.tar.gz",
]

[tool.poetry.dependencies]
python = "^3.11"
fastapi = "^0.111.0"
redis = { version = "^5.0.4", extras = ["hiredis"] }
boto3 = { version = "1.34.0", optional = true }
internal-lib = { path = "../lib", develop = true }
django = "^4.2"

[tool.poetry.group.dev.dependencies]
pytest = "^8.2"
"#;
        assert_eq!(
            found("pyproject.toml", text),
            vec![
                row("Django", Some(">=4.2,<5.0"), Framework, Some("web")),
                row("fastapi", Some("0.111.0"), Framework, Some("web")),
                row("psycopg", Some("3.1.19"), Database, Some("postgres")),
                row("SQLAlchemy", Some("~=2.0"), Database, Some("postgres")),
                row("redis", Some("5.0.4"), Cache, Some("redis")),
                row("celery", Some(">=5.3"), Queue, Some("redis")),
                row("elasticsearch", None, Search, Some("elasticsearch")),
                row("boto3", Some("1.34.0"), Cloud, Some("aws")),
                row("google-cloud-storage", None, Cloud, Some("google cloud")),
            ]
        );
    }

    #[test]
    fn requirements_skip_comments_options_and_markers() {
        let text = "\
# Production requirements
-r requirements-base.txt
--index-url https://pypi.org/simple
flask==3.0.3  # the web app
psycopg2_binary==2.9.9 \\
    --hash=sha256:0123456789abcdef
redis>=5.0 ; python_version >= \"3.8\"
pika
kafka-python==2.0.2
-e git+https://github.com/acme/tools.git#egg=tools
https://example.com/wheels/azure_storage_blob-12.0.0-py3-none-any.whl
azure_storage_blob==12.20.0
numpy==1.26.4
";
        assert_eq!(
            found("requirements.txt", text),
            vec![
                row("flask", Some("3.0.3"), Framework, Some("web")),
                row("psycopg2_binary", Some("2.9.9"), Database, Some("postgres")),
                row("redis", Some(">=5.0"), Cache, Some("redis")),
                row("kafka-python", Some("2.0.2"), Queue, Some("kafka")),
                row("pika", None, Queue, Some("rabbitmq")),
                row("azure_storage_blob", Some("12.20.0"), Cloud, Some("azure")),
            ]
        );
    }

    #[test]
    fn go_mod_reads_require_lines_and_blocks_but_not_indirect_ones() {
        let text = "\
module github.com/acme/orders

go 1.22

require github.com/gin-gonic/gin v1.10.0

require (
\tgithub.com/jackc/pgx/v5 v5.6.0
\tgithub.com/redis/go-redis/v9 v9.5.3
\tgithub.com/IBM/sarama v1.43.2
\tgithub.com/aws/aws-sdk-go-v2/service/s3 v1.58.0
\tgithub.com/google/uuid v1.6.0
\tgithub.com/lib/pq v1.10.9 // indirect
)

replace github.com/segmentio/kafka-go => ../kafka-go
";
        assert_eq!(
            found("go.mod", text),
            vec![
                row("github.com/gin-gonic/gin", Some("v1.10.0"), Framework, Some("web")),
                row("github.com/jackc/pgx/v5", Some("v5.6.0"), Database, Some("postgres")),
                row("github.com/redis/go-redis/v9", Some("v9.5.3"), Cache, Some("redis")),
                row("github.com/IBM/sarama", Some("v1.43.2"), Queue, Some("kafka")),
                row("github.com/aws/aws-sdk-go-v2/service/s3", Some("v1.58.0"), Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn pom_reads_the_spring_boot_parent_dependencies_and_properties() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>3.3.1</version>
    <relativePath/> <!-- lookup parent from repository -->
  </parent>
  <groupId>com.acme</groupId>
  <artifactId>orders</artifactId>
  <version>0.0.1-SNAPSHOT</version>
  <properties>
    <java.version>21</java.version>
    <awssdk.version>2.26.7</awssdk.version>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
    <dependency>
      <groupId>org.postgresql</groupId>
      <artifactId>postgresql</artifactId>
      <scope>runtime</scope>
    </dependency>
    <dependency>
      <groupId>software.amazon.awssdk</groupId>
      <artifactId>s3</artifactId>
      <version>${awssdk.version}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-clients</artifactId>
      <version><![CDATA[3.7.0]]></version>
    </dependency>
    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
      <version>33.2.1-jre</version>
    </dependency>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-test</artifactId>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-maven-plugin</artifactId>
      </plugin>
    </plugins>
  </build>
</project>
"#;
        assert_eq!(
            found("pom.xml", text),
            vec![
                row(
                    "org.springframework.boot:spring-boot-starter-parent",
                    Some("3.3.1"),
                    Framework,
                    Some("Spring Boot")
                ),
                row("org.springframework.boot:spring-boot-starter-web", None, Framework, Some("Spring Boot")),
                row("org.postgresql:postgresql", None, Database, Some("postgres")),
                row("org.apache.kafka:kafka-clients", Some("3.7.0"), Queue, Some("kafka")),
                row("software.amazon.awssdk:s3", Some("2.26.7"), Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn build_gradle_kts_reads_string_notation_without_test_configurations() {
        let text = r#"
plugins {
    id("org.springframework.boot") version "3.3.1"
    kotlin("jvm") version "1.9.24"
}

dependencies {
    implementation(platform("software.amazon.awssdk:bom:2.26.7"))
    implementation("org.springframework.boot:spring-boot-starter-data-redis")
    implementation("org.hibernate.orm:hibernate-core:6.5.2.Final")
    implementation(libs.jackson.kotlin)
    runtimeOnly("com.mysql:mysql-connector-j:8.4.0")
    implementation 'io.lettuce:lettuce-core:6.3.2.RELEASE'
    // implementation("org.mongodb:mongodb-driver-sync:5.1.0")
    testImplementation("org.springframework.boot:spring-boot-starter-test")
    androidTestImplementation("org.apache.kafka:kafka-clients:3.7.0")
}
"#;
        assert_eq!(
            found("app/build.gradle.kts", text),
            vec![
                row("org.springframework.boot:spring-boot-starter-data-redis", None, Framework, Some("Spring Boot")),
                row("com.mysql:mysql-connector-j", Some("8.4.0"), Database, Some("mysql")),
                row("org.hibernate.orm:hibernate-core", Some("6.5.2.Final"), Database, None),
                row("io.lettuce:lettuce-core", Some("6.3.2.RELEASE"), Cache, Some("redis")),
                row("software.amazon.awssdk:bom", Some("2.26.7"), Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn gemfile_reads_gems_and_their_requirements() {
        let text = r#"
source "https://rubygems.org"
ruby "3.3.1"

gem "rails", "~> 7.1.3"
gem "pg", ">= 0.18", "< 2.0"
gem "puma", ">= 5.0"
gem 'redis', '4.8.1', require: false
gem "sidekiq"
gem "aws-sdk-s3", require: false
gem "mongoid", github: "mongodb/mongoid"

group :development, :test do
  gem "sqlite3", "~> 1.4"
end
"#;
        assert_eq!(
            found("Gemfile", text),
            vec![
                row("rails", Some("7.1.3"), Framework, Some("web")),
                row("mongoid", None, Database, Some("mongodb")),
                row("pg", Some(">= 0.18, < 2.0"), Database, Some("postgres")),
                row("sqlite3", Some("1.4"), Database, Some("sqlite")),
                row("redis", Some("4.8.1"), Cache, Some("redis")),
                row("sidekiq", None, Queue, Some("redis")),
                row("aws-sdk-s3", None, Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn composer_json_reads_require_only() {
        let text = r#"{
    "name": "acme/shop",
    "type": "project",
    "require": {
        "php": "^8.2",
        "laravel/framework": "^11.9",
        "predis/predis": "~2.2",
        "aws/aws-sdk-php": "3.314.*",
        "guzzlehttp/guzzle": "^7.8"
    },
    "require-dev": {
        "phpunit/phpunit": "^11.0",
        "symfony/var-dumper": "^7.1"
    }
}"#;
        assert_eq!(
            found("composer.json", text),
            vec![
                row("laravel/framework", Some("11.9"), Framework, Some("web")),
                row("predis/predis", Some("2.2"), Cache, Some("redis")),
                row("aws/aws-sdk-php", Some("3.314.*"), Cloud, Some("aws")),
            ]
        );
    }

    #[test]
    fn malformed_manifests_are_errors() {
        let cases = [
            ("Cargo.toml", "[dependencies]\nsqlx = { version = \"0.8\"\n", "not valid TOML: line 2:"),
            ("pyproject.toml", "[project]\ndependencies = [\"django\"\n", "not valid TOML: line "),
            ("package.json", "{ \"dependencies\": { \"pg\": \"8\", } }", "not valid JSON: "),
            ("package.json", "[\"pg\"]", "the top level is not a JSON object"),
            ("composer.json", "{ \"require\": ", "not valid JSON: "),
            ("pom.xml", "<project><dependencies></project>", "not valid XML: "),
            ("pom.xml", "<project><dependencies>", "not valid XML: <dependencies> is never closed"),
            ("pom.xml", "<settings></settings>", "not a Maven POM: <settings> at the top level"),
            ("pom.xml", "just text", "not a Maven POM: no <project> element"),
            ("pom.xml", "<project><version>&bogus;</version></project>", "not valid XML: unknown entity &bogus;"),
            ("README.md", "# hello", "not a manifest this reader knows"),
        ];
        for (relative, text, expected) in cases {
            let err = dependencies(relative, text).expect_err(relative);
            assert!(err.starts_with(expected), "{relative}: {err}");
        }
    }

    #[test]
    fn versions_lose_an_operator_only_before_one_plain_version() {
        let cases = [
            ("^1.2.3", Some("1.2.3")),
            ("~1.2", Some("1.2")),
            ("==2.0", Some("2.0")),
            ("~> 7.1", Some("7.1")),
            ("=0.12.1", Some("0.12.1")),
            ("1.0", Some("1.0")),
            (">=1.2, <2", Some(">=1.2, <2")),
            ("~=2.0", Some("~=2.0")),
            ("^1 || ^2", Some("^1 || ^2")),
            ("*", Some("*")),
            ("  ", None),
        ];
        for (written, expected) in cases {
            assert_eq!(plain_version(written).as_deref(), expected, "{written}");
        }
    }
}

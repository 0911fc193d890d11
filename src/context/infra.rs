//! Infrastructure files: services, base images, declared resources. Compose files, Helm
//! charts and Kubernetes manifests are read with the YAML reader; Dockerfiles and
//! Terraform, whose grammars we need only a line of, are read line by line.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value as Json;

use crate::model::Infrastructure;
use crate::text::yaml;

/// Directories whose YAML files are taken for Kubernetes manifests, at any depth.
const KUBERNETES_DIRECTORIES: &[&str] = &["k8s", "kubernetes", "deploy", "deployment", "manifests", "kustomize"];

/// How many names a count lists before it says "and N more": enough to recognise the
/// resources, short enough for a prompt.
const NAMES_SHOWN: usize = 5;

/// The kinds of file this module reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum File {
    Compose,
    Dockerfile,
    Chart,
    Kubernetes,
    Terraform,
}

/// One thing a file declares: its name and what to say about it.
type Entry = (String, Option<String>);

/// Whether a file is one this module reads, by its path from the repository root.
pub fn is_infrastructure(relative: &str) -> bool {
    file(relative).is_some()
}

/// The services, images and resources a file declares.
pub fn infrastructure(relative: &str, text: &str) -> Result<Vec<Infrastructure>, String> {
    let file = file(relative).ok_or("not an infrastructure file this reader knows")?;
    let entries = match file {
        File::Compose => compose(relative, text)?,
        File::Dockerfile => dockerfile(text)?,
        File::Chart => chart(relative, text)?,
        File::Kubernetes => kubernetes(relative, text)?,
        File::Terraform => terraform(text),
    };
    Ok(entries
        .into_iter()
        .map(|(name, detail)| Infrastructure {
            kind: file.label().to_string(),
            name,
            detail,
            source: relative.to_string(),
        })
        .collect())
}

/// What a path names, if anything this module reads.
fn file(relative: &str) -> Option<File> {
    let (directories, name) = relative.rsplit_once('/').unwrap_or(("", relative));
    let lower = name.to_ascii_lowercase();
    let yaml = lower.ends_with(".yml") || lower.ends_with(".yaml");
    if yaml && is_compose(&lower) {
        Some(File::Compose)
    } else if is_dockerfile(&lower) {
        Some(File::Dockerfile)
    } else if name == "Chart.yaml" {
        Some(File::Chart)
    } else if lower.ends_with(".tf") {
        Some(File::Terraform)
    } else if yaml && directories.split('/').any(|directory| KUBERNETES_DIRECTORIES.contains(&directory)) {
        Some(File::Kubernetes)
    } else {
        None
    }
}

/// `docker-compose.yml`, `compose.yaml`, `compose.prod.yml`, `docker-compose-dev.yaml`;
/// a separator must follow so that `composer.yml` is not one.
fn is_compose(lower: &str) -> bool {
    ["docker-compose", "compose"]
        .iter()
        .filter_map(|stem| lower.strip_prefix(stem))
        .any(|rest| rest.starts_with(['.', '-', '_']))
}

/// `Dockerfile`, `Dockerfile.dev`, `api.Dockerfile`; not BuildKit's per-Dockerfile
/// ignore file, `Dockerfile.dockerignore`.
fn is_dockerfile(lower: &str) -> bool {
    (lower == "dockerfile" || lower.starts_with("dockerfile.") || lower.ends_with(".dockerfile"))
        && !lower.ends_with(".dockerignore")
}

impl File {
    fn label(self) -> &'static str {
        match self {
            File::Compose => "compose service",
            File::Dockerfile => "base image",
            File::Chart => "helm chart",
            File::Kubernetes => "kubernetes",
            File::Terraform => "terraform",
        }
    }
}

// ---- Compose -------------------------------------------------------------------------

/// One entry per service, by name: the image it runs, or where it is built from.
fn compose(relative: &str, text: &str) -> Result<Vec<Entry>, String> {
    let document: Json = yaml::parse(text, relative)?;
    let root = document.as_object().ok_or("not a compose file: the top level is not a mapping")?;
    let Some(services) = root.get("services") else { return Ok(Vec::new()) };
    let services = services.as_object().ok_or("not a compose file: `services` is not a mapping")?;
    let mut entries: Vec<Entry> = services.iter().map(|(name, service)| (name.clone(), origin(service))).collect();
    entries.sort();
    Ok(entries)
}

/// A service that is built runs the project's own code, which says more than the tag it
/// is given, so `build` wins over `image`.
fn origin(service: &Json) -> Option<String> {
    let context = service.get("build").map(|build| match build {
        Json::String(context) => context.as_str(),
        _ => build.get("context").and_then(Json::as_str).unwrap_or("."),
    });
    match (context, service.get("image").and_then(Json::as_str)) {
        (Some(context), _) => Some(format!("built from {context}")),
        (None, Some(image)) => Some(image.to_string()),
        (None, None) => None,
    }
}

// ---- Dockerfile ----------------------------------------------------------------------

static VARIABLE: LazyLock<Regex> = LazyLock::new(|| {
    // `${NAME}`, `${NAME:-default}` or `$NAME`.
    Regex::new(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)").expect("the pattern is valid")
});

/// One entry per `FROM` that pulls an image: not `scratch`, not an earlier stage. The
/// detail is the stage's name. `ARG` defaults declared before the first `FROM` are
/// substituted, since that is where base image versions are usually pinned.
fn dockerfile(text: &str) -> Result<Vec<Entry>, String> {
    let mut arguments: HashMap<String, String> = HashMap::new();
    let mut stages: Vec<String> = Vec::new();
    let mut entries = Vec::new();
    let mut seen_from = false;
    for (line, instruction) in instructions(text) {
        let (keyword, rest) = instruction.split_once(char::is_whitespace).unwrap_or((instruction.as_str(), ""));
        if keyword.eq_ignore_ascii_case("ARG") && !seen_from {
            arguments.extend(defaults(rest));
        } else if keyword.eq_ignore_ascii_case("FROM") {
            seen_from = true;
            let (image, stage) = from(rest).ok_or_else(|| format!("line {line}: FROM names no image"))?;
            let image = substitute(&image, &arguments);
            let earlier_stage = stages.iter().any(|earlier| earlier.eq_ignore_ascii_case(&image));
            if !earlier_stage && !image.is_empty() && !image.eq_ignore_ascii_case("scratch") {
                entries.push((image, stage.clone()));
            }
            stages.extend(stage);
        }
    }
    if seen_from { Ok(entries) } else { Err("not a Dockerfile: no FROM instruction".into()) }
}

/// The instructions with their first line numbers: comments dropped, lines ending in `\`
/// joined with the next, as Docker reads them.
fn instructions(text: &str) -> Vec<(usize, String)> {
    let mut instructions = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('#') || (line.is_empty() && current.is_none()) {
            continue;
        }
        let (part, continued) = line.strip_suffix('\\').map_or((line, false), |part| (part, true));
        let (_, instruction) = current.get_or_insert_with(|| (index + 1, String::new()));
        instruction.push_str(part);
        instruction.push(' ');
        if !continued {
            instructions.extend(current.take());
        }
    }
    instructions.extend(current);
    instructions
}

/// `ARG NAME=value OTHER="value"`: the defaults it declares.
fn defaults(rest: &str) -> impl Iterator<Item = (String, String)> {
    rest.split_whitespace()
        .filter_map(|word| word.split_once('='))
        .map(|(name, value)| (name.to_string(), value.trim_matches(|c| c == '"' || c == '\'').to_string()))
}

/// `FROM [--platform=…] image [AS stage]`: the image and the stage's name.
fn from(rest: &str) -> Option<(String, Option<String>)> {
    let mut words = rest.split_whitespace().skip_while(|word| word.starts_with("--"));
    let image = words.next()?.to_string();
    let stage = match (words.next(), words.next()) {
        (Some(keyword), Some(stage)) if keyword.eq_ignore_ascii_case("AS") => Some(stage.to_string()),
        _ => None,
    };
    Some((image, stage))
}

/// The image with the variables its `ARG`s define replaced; unknown ones stay as written.
fn substitute(image: &str, arguments: &HashMap<String, String>) -> String {
    VARIABLE
        .replace_all(image, |variable: &regex::Captures| {
            let name = variable.get(1).or(variable.get(3)).map_or("", |name| name.as_str());
            let fallback = variable.get(2).map(|fallback| fallback.as_str());
            let value = arguments.get(name).map(String::as_str).or(fallback);
            value.map_or_else(|| variable[0].to_string(), str::to_string)
        })
        .into_owned()
}

// ---- Helm ----------------------------------------------------------------------------

/// The chart, with its version, then its dependencies: those are often the datastores it
/// runs (`postgresql`, `redis`).
fn chart(relative: &str, text: &str) -> Result<Vec<Entry>, String> {
    let chart: Json = yaml::parse(text, relative)?;
    let name = chart.get("name").and_then(scalar).ok_or("not a Helm chart: Chart.yaml has no `name`")?;
    let dependencies = chart.get("dependencies").and_then(Json::as_array).into_iter().flatten();
    let dependencies: Vec<Entry> = dependencies.filter_map(|dependency| chart_dependency(dependency, &name)).collect();
    let version = chart.get("version").and_then(scalar);
    Ok([(name, version)].into_iter().chain(dependencies).collect())
}

/// A dependency of `chart`, with its version when it gives one.
fn chart_dependency(dependency: &Json, chart: &str) -> Option<Entry> {
    let name = dependency.get("name").and_then(scalar)?;
    let detail = match dependency.get("version").and_then(scalar) {
        Some(version) => format!("{version}, dependency of {chart}"),
        None => format!("dependency of {chart}"),
    };
    Some((name, Some(detail)))
}

/// A YAML scalar as text: `version: 1.2` is a number to YAML but a version to us.
fn scalar(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.clone()),
        Json::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

// ---- Kubernetes ----------------------------------------------------------------------

/// One entry per resource kind, counted with its names. Documents that do not parse are
/// skipped; the file is an error only when none of them does. Documents holding `{{`
/// are templates (Helm, for one), not YAML until rendered, and are skipped quietly.
fn kubernetes(relative: &str, text: &str) -> Result<Vec<Entry>, String> {
    let mut tally = Tally::default();
    let mut first_error = None;
    let mut parsed = false;
    for (number, document) in documents(text).into_iter().enumerate() {
        if is_blank(document) || document.contains("{{") {
            continue;
        }
        match yaml::parse::<Json>(document, relative) {
            Ok(resource) => {
                parsed = true;
                if let Some(kind) = resource_kind(&resource) {
                    tally.add(kind, resource.pointer("/metadata/name").and_then(Json::as_str));
                }
            }
            Err(err) => {
                first_error.get_or_insert(format!("document {}: {err}", number + 1));
            }
        }
    }
    match first_error {
        Some(err) if !parsed => Err(err),
        _ => Ok(tally.entries()),
    }
}

/// The documents of a multi-document YAML stream, split at `---` lines.
fn documents(text: &str) -> Vec<&str> {
    let mut documents = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let marker = line.trim_end();
        if marker == "---" || marker.starts_with("--- ") {
            documents.push(&text[start..offset]);
            start = offset + line.len();
        }
        offset += line.len();
    }
    documents.push(&text[start..]);
    documents
}

/// Only blank lines and comments: nothing to parse (the part before a leading `---`).
fn is_blank(document: &str) -> bool {
    document.lines().map(str::trim).all(|line| line.is_empty() || line.starts_with('#'))
}

/// A Kubernetes resource says what it is with both `apiVersion` and `kind`; other YAML
/// in a deploy directory (Helm values, CI settings) does not.
fn resource_kind(resource: &Json) -> Option<&str> {
    resource.get("apiVersion").and_then(Json::as_str)?;
    resource.get("kind").and_then(Json::as_str)
}

// ---- Terraform -----------------------------------------------------------------------

static RESOURCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*resource\s+"([^"]+)"\s+"([^"]+)""#).expect("the pattern is valid"));

/// One entry per resource type, counted with its names: `resource "aws_db_instance"
/// "main" {` opens a block on a line of its own in any formatted configuration.
fn terraform(text: &str) -> Vec<Entry> {
    let mut tally = Tally::default();
    for resource in text.lines().filter_map(|line| RESOURCE.captures(line)) {
        tally.add(&resource[1], Some(&resource[2]));
    }
    tally.entries()
}

// ---- Counting ------------------------------------------------------------------------

/// Resources counted by type, in the order each type first appears.
#[derive(Debug, Default)]
struct Tally(Vec<(String, usize, Vec<String>)>);

impl Tally {
    fn add(&mut self, kind: &str, name: Option<&str>) {
        let index = match self.0.iter().position(|(seen, ..)| seen == kind) {
            Some(index) => index,
            None => {
                self.0.push((kind.to_string(), 0, Vec::new()));
                self.0.len() - 1
            }
        };
        let (_, count, names) = &mut self.0[index];
        *count += 1;
        names.extend(name.map(str::to_string));
    }

    /// "2 (web, worker)" per type; a type without names is just its count.
    fn entries(self) -> Vec<Entry> {
        self.0
            .into_iter()
            .map(|(kind, count, names)| {
                let mut listed = names.iter().take(NAMES_SHOWN).cloned().collect::<Vec<_>>().join(", ");
                if names.len() > NAMES_SHOWN {
                    listed.push_str(&format!(" and {} more", names.len() - NAMES_SHOWN));
                }
                let summary = if names.is_empty() { count.to_string() } else { format!("{count} ({listed})") };
                (kind, Some(summary))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (kind, name, detail) of each entry found, for compact assertions.
    fn found(relative: &str, text: &str) -> Vec<(String, String, Option<String>)> {
        let infrastructure = infrastructure(relative, text).expect("the file parses");
        assert!(infrastructure.iter().all(|entry| entry.source == relative));
        infrastructure.into_iter().map(|entry| (entry.kind, entry.name, entry.detail)).collect()
    }

    fn row(kind: &str, name: &str, detail: Option<&str>) -> (String, String, Option<String>) {
        (kind.into(), name.into(), detail.map(str::to_string))
    }

    #[test]
    fn infrastructure_files_are_known_by_path() {
        for path in [
            "docker-compose.yml",
            "docker-compose.override.yaml",
            "ops/compose.yaml",
            "compose-dev.yml",
            "Dockerfile",
            "services/api/Dockerfile.prod",
            "worker.Dockerfile",
            "charts/shop/Chart.yaml",
            "infra/main.tf",
            "k8s/deployment.yaml",
            "ops/deploy/base/service.yml",
            "kustomize/overlays/prod/patch.yaml",
        ] {
            assert!(is_infrastructure(path), "{path}");
        }
        for path in [
            "composer.yml",
            "Dockerfile.dockerignore",
            "config/app.yaml",
            "k8s/README.md",
            "charts/shop/values.yaml",
            "deployments.yaml",
            "main.tfvars",
        ] {
            assert!(!is_infrastructure(path), "{path}");
        }
    }

    #[test]
    fn compose_lists_each_service_with_its_image_or_build_context() {
        let text = r#"
x-logging: &logging
  driver: json-file

services:
  db:
    image: postgres:16-alpine
    environment:
      POSTGRES_PASSWORD: example
    volumes:
      - pgdata:/var/lib/postgresql/data
  cache:
    image: "redis:7.2"
    logging: *logging
  api:
    build:
      context: ./services/api
      dockerfile: Dockerfile.prod
    image: acme/api:latest
    depends_on: [db, cache]
    ports:
      - "8080:8080"
  worker:
    build: .
  proxy:
    extends:
      file: common.yml
      service: proxy

volumes:
  pgdata:
"#;
        assert_eq!(
            found("docker-compose.yml", text),
            vec![
                row("compose service", "api", Some("built from ./services/api")),
                row("compose service", "cache", Some("redis:7.2")),
                row("compose service", "db", Some("postgres:16-alpine")),
                row("compose service", "proxy", None),
                row("compose service", "worker", Some("built from .")),
            ]
        );
    }

    #[test]
    fn compose_without_services_declares_nothing() {
        assert_eq!(found("compose.yaml", "volumes:\n  data: {}\n"), vec![]);
    }

    #[test]
    fn multi_stage_dockerfile_names_pulled_images_only() {
        let text = r#"# syntax=docker/dockerfile:1
ARG RUST_VERSION=1.79
ARG DEBIAN="bookworm"

FROM --platform=$BUILDPLATFORM rust:${RUST_VERSION}-slim-${DEBIAN} AS build
WORKDIR /src
COPY . .
RUN cargo build --release \
    --locked
# FROM alpine:3.20 is only a comment

FROM build as test
RUN cargo test

FROM gcr.io/distroless/cc-debian12:${TAG:-nonroot}
COPY --from=build /src/target/release/app /app

FROM scratch AS export
COPY --from=build /src/target/release/app /
"#;
        assert_eq!(
            found("Dockerfile", text),
            vec![
                row("base image", "rust:1.79-slim-bookworm", Some("build")),
                row("base image", "gcr.io/distroless/cc-debian12:nonroot", None),
            ]
        );
    }

    #[test]
    fn helm_chart_names_itself_and_its_dependencies() {
        let text = r#"
apiVersion: v2
name: shop
description: The shop
type: application
version: 1.4
appVersion: "2.3.0"
dependencies:
  - name: postgresql
    version: 15.5.9
    repository: oci://registry-1.docker.io/bitnamicharts
  - name: redis
    repository: oci://registry-1.docker.io/bitnamicharts
"#;
        assert_eq!(
            found("deploy/charts/shop/Chart.yaml", text),
            vec![
                row("helm chart", "shop", Some("1.4")),
                row("helm chart", "postgresql", Some("15.5.9, dependency of shop")),
                row("helm chart", "redis", Some("dependency of shop")),
            ]
        );
    }

    #[test]
    fn kubernetes_counts_resources_by_kind_across_documents() {
        let text = r#"---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: acme/web:1.2.0
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
--- # the background jobs
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
---
# nothing but a comment
---
apiVersion: batch/v1
kind: CronJob
metadata:
  generateName: cleanup-
---
image: [unclosed
---
replicaCount: 2
"#;
        assert_eq!(
            found("k8s/app.yaml", text),
            vec![
                row("kubernetes", "Deployment", Some("2 (web, worker)")),
                row("kubernetes", "Service", Some("1 (web)")),
                row("kubernetes", "CronJob", Some("1")),
            ]
        );
    }

    #[test]
    fn kubernetes_templates_are_skipped() {
        let text = "{{- if .Values.ingress.enabled }}\napiVersion: networking.k8s.io/v1\nkind: Ingress\n{{- end }}\n";
        assert_eq!(found("deploy/templates/ingress.yaml", text), vec![]);
    }

    #[test]
    fn terraform_counts_resources_by_type() {
        let text = r#"
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.0" }
  }
}

resource "aws_db_instance" "main" {
  engine         = "postgres"
  engine_version = "16.3"
  instance_class = "db.t4g.medium"
}

resource "aws_elasticache_cluster" "sessions" {
  engine = "redis"
}

# resource "aws_db_instance" "old" {}
resource "aws_db_instance" "replica" {
  replicate_source_db = aws_db_instance.main.identifier
}

data "aws_vpc" "default" {
  default = true
}
"#;
        assert_eq!(
            found("infra/main.tf", text),
            vec![
                row("terraform", "aws_db_instance", Some("2 (main, replica)")),
                row("terraform", "aws_elasticache_cluster", Some("1 (sessions)")),
            ]
        );
    }

    #[test]
    fn long_counts_list_the_first_names() {
        let text: String = (1..=7).map(|n| format!("resource \"aws_s3_bucket\" \"b{n}\" {{}}\n")).collect();
        assert_eq!(
            found("main.tf", &text),
            vec![row("terraform", "aws_s3_bucket", Some("7 (b1, b2, b3, b4, b5 and 2 more)"))]
        );
    }

    #[test]
    fn malformed_files_are_errors() {
        let cases = [
            ("docker-compose.yml", "services:\n  db: [unclosed\n", "docker-compose.yml:"),
            ("compose.yaml", "- just\n- a list\n", "not a compose file: the top level is not a mapping"),
            ("compose.yaml", "services: [db, cache]\n", "not a compose file: `services` is not a mapping"),
            ("Dockerfile", "RUN echo hello\n", "not a Dockerfile: no FROM instruction"),
            ("Dockerfile", "FROM node:20\nFROM --platform=linux/amd64\n", "line 2: FROM names no image"),
            ("charts/x/Chart.yaml", "name: [x\n", "charts/x/Chart.yaml:"),
            ("charts/x/Chart.yaml", "apiVersion: v2\nversion: 1.0.0\n", "not a Helm chart: Chart.yaml has no `name`"),
            ("k8s/app.yaml", "kind: [Deployment\n---\nkind: {Service\n", "document 1: k8s/app.yaml:"),
            ("README.md", "# hello", "not an infrastructure file this reader knows"),
        ];
        for (relative, text, expected) in cases {
            let err = infrastructure(relative, text).expect_err(relative);
            assert!(err.starts_with(expected), "{relative}: {err}");
        }
    }
}

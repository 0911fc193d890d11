//! Which declared dependencies are notable, by the table in `known.toml`. The table is
//! data, not code, so teaching the reader a package is one line there; it is embedded
//! in the binary and parsed once.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;

use super::declared::Declared;
use crate::model::{Dependency, DependencyKind};

/// Whose package names a manifest uses: the table has one section per ecosystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Rust,
    Npm,
    Python,
    Go,
    Java,
    Ruby,
    Php,
}

impl Ecosystem {
    /// The name as the table compares it: Python's after PEP 503 (`_` and `.` are `-`).
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

/// `known.toml` as written.
#[derive(Debug, Deserialize)]
struct Table {
    /// The backends a multi-backend package's features or extras can name.
    backends: Vec<String>,
    /// Each ecosystem's packages (a name, or a prefix ending in `*`).
    #[serde(flatten)]
    packages: BTreeMap<Ecosystem, BTreeMap<String, Package>>,
}

/// A notable package's kind, and what it brings when the package alone decides that.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Package {
    kind: DependencyKind,
    detail: Option<String>,
}

const TEXT: &str = include_str!("known.toml");

fn parse(text: &str) -> Result<Table, String> {
    toml::from_str(text).map_err(|err: toml::de::Error| err.to_string())
}

/// The unit tests parse the same embedded text, so this cannot fail in a tested build.
static TABLE: LazyLock<Table> = LazyLock::new(|| parse(TEXT).expect("known.toml parses (see its unit test)"));

/// The declared dependencies the table knows, one entry per package, grouped by kind,
/// then by name.
pub fn notable(ecosystem: Ecosystem, manifest: &str, declared: Vec<Declared>) -> Vec<Dependency> {
    let mut found: Vec<Dependency> = Vec::new();
    for each in declared {
        let Some(package) = known(&TABLE, ecosystem, &each.name) else { continue };
        let detail = package.detail.clone().or_else(|| backends(&TABLE.backends, &each.features));
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
                kind: package.kind,
                detail,
                manifest: manifest.to_string(),
            }),
        }
    }
    found.sort_by_cached_key(|dependency| (dependency.kind, dependency.name.to_ascii_lowercase()));
    found
}

/// The table's entry for a package: its exact name, else the longest prefix that
/// matches, so the table's order never matters.
fn known<'t>(table: &'t Table, ecosystem: Ecosystem, name: &str) -> Option<&'t Package> {
    let key = ecosystem.key(name);
    let packages = table.packages.get(&ecosystem)?;
    let exact = packages.iter().find(|(pattern, _)| !pattern.ends_with('*') && ecosystem.same(pattern, &key));
    let prefix = || {
        packages
            .iter()
            .filter_map(|(pattern, package)| Some((ecosystem.key(pattern.strip_suffix('*')?), package)))
            .filter(|(prefix, _)| key.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix)))
            .max_by_key(|(prefix, _)| prefix.len())
    };
    exact.map(|(_, package)| package).or_else(|| prefix().map(|(_, package)| package))
}

/// The backends the features name, in the table's order: "postgres", "mysql, sqlite".
fn backends(backends: &[String], features: &[String]) -> Option<String> {
    let named: Vec<&str> = backends
        .iter()
        .map(String::as_str)
        .filter(|backend| features.iter().any(|feature| feature.to_ascii_lowercase().contains(backend)))
        .collect();
    (!named.is_empty()).then(|| named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY: [Ecosystem; 7] = [
        Ecosystem::Rust,
        Ecosystem::Npm,
        Ecosystem::Python,
        Ecosystem::Go,
        Ecosystem::Java,
        Ecosystem::Ruby,
        Ecosystem::Php,
    ];

    #[test]
    fn every_service_the_table_names_is_one_a_guard_can_name() {
        let table = parse(TEXT).unwrap();
        let services = [DependencyKind::Database, DependencyKind::Cache, DependencyKind::Queue, DependencyKind::Search];
        let named = table.packages.values().flat_map(|packages| packages.values());
        let details = named.filter(|p| services.contains(&p.kind)).filter_map(|p| p.detail.as_deref());
        for detail in details.chain(table.backends.iter().map(String::as_str)) {
            assert!(crate::model::SERVICES.contains(&detail), "{detail} is not in model::SERVICES");
        }
    }

    #[test]
    fn the_embedded_table_parses_with_a_section_for_every_ecosystem() {
        let table = parse(TEXT).expect("known.toml parses");
        for ecosystem in EVERY {
            assert!(table.packages.get(&ecosystem).is_some_and(|packages| !packages.is_empty()), "{ecosystem:?}");
        }
        assert_eq!(table.backends, ["postgres", "mysql", "sqlite", "mssql", "redis"]);
    }

    #[test]
    fn the_embedded_table_names_no_package_twice() {
        // TOML rejects a key written twice; this catches the same package written two
        // ways the lookup treats as one (case, and Python's `_`/`.`/`-`).
        let table = parse(TEXT).expect("known.toml parses");
        for (ecosystem, packages) in &table.packages {
            let mut keys: Vec<String> =
                packages.keys().map(|pattern| ecosystem.key(pattern).to_ascii_lowercase()).collect();
            keys.sort();
            let before = keys.len();
            keys.dedup();
            assert_eq!(keys.len(), before, "{ecosystem:?} names a package twice");
        }
        let written =
            parse("backends = []\n[rust]\naxum = { kind = \"framework\" }\naxum = { kind = \"framework\" }\n");
        assert!(written.is_err_and(|err| err.contains("duplicate key")));
    }

    #[test]
    fn a_table_with_an_unknown_ecosystem_kind_or_field_is_an_error() {
        for text in [
            "backends = []\n[cobol]\nx = { kind = \"framework\" }\n",
            "backends = []\n[rust]\nx = { kind = \"toolkit\" }\n",
            "backends = []\n[rust]\nx = { kind = \"cache\", details = \"redis\" }\n",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn an_exact_name_wins_over_a_prefix_and_case_does_not_matter() {
        let table = parse(
            "backends = []\n[ruby]\n\"aws-*\" = { kind = \"cloud\", detail = \"short\" }\n\"aws-sdk-*\" = { kind = \"cloud\", detail = \"long\" }\n\"aws-sdk-s3\" = { kind = \"cloud\", detail = \"exact\" }\n",
        )
        .expect("parses");
        let detail = |name: &str| known(&table, Ecosystem::Ruby, name).and_then(|p| p.detail.clone());
        assert_eq!(detail("AWS-SDK-S3").as_deref(), Some("exact"));
        assert_eq!(detail("aws-sdk-ec2").as_deref(), Some("long"));
        assert_eq!(detail("aws-lambda").as_deref(), Some("short"));
        assert_eq!(detail("aws"), None, "a prefix needs the whole prefix");
        assert_eq!(known(&table, Ecosystem::Rust, "aws-sdk-s3").map(|p| p.kind), None, "another ecosystem's table");
    }

    #[test]
    fn python_names_match_in_any_spelling() {
        let found = |name: &str| known(&TABLE, Ecosystem::Python, name).map(|p| p.kind);
        assert_eq!(found("psycopg2_binary"), Some(DependencyKind::Database));
        assert_eq!(found("Azure.Storage.Blob"), Some(DependencyKind::Cloud));
        assert_eq!(found("numpy"), None);
    }
}

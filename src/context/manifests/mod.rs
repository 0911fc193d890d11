//! Manifests: the notable dependencies they declare. Each ecosystem's reader is a file
//! of its own and reads its formats with their real parser (TOML, JSON, XML) or, for the
//! line formats (go.mod, requirements, Gemfile, Gradle), line by line, into `Declared`
//! dependencies. What counts as notable — frameworks, datastores, caches, queues, search
//! engines, cloud SDKs — is decided by one table, `known.toml`, so teaching the reader a
//! package is one line there. This file only knows manifests by name and dispatches.

mod declared;
mod formats;
mod go;
mod java;
mod known;
mod npm;
mod php;
mod python;
mod ruby;
mod rust;

use crate::model::Dependency;
use known::Ecosystem;

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

/// Whether a file, by its name, is a manifest this module reads.
pub fn is_manifest(file_name: &str) -> bool {
    format(file_name).is_some()
}

/// The notable dependencies a manifest declares, grouped by kind, then by name.
pub fn dependencies(relative: &str, text: &str) -> Result<Vec<Dependency>, String> {
    let format = format(relative).ok_or("not a manifest this reader knows")?;
    let declared = match format {
        Format::Cargo => rust::cargo(text)?,
        Format::PackageJson => npm::package_json(text)?,
        Format::Pyproject => python::pyproject(text)?,
        Format::Requirements => python::requirements(text),
        Format::GoMod => go::go_mod(text),
        Format::Pom => java::pom(text)?,
        Format::Gradle => java::gradle(text),
        Format::Gemfile => ruby::gemfile(text),
        Format::Composer => php::composer(text)?,
    };
    Ok(known::notable(format.ecosystem(), relative, declared))
}

/// The first line (1-based) of a manifest's text that names the package `name` as a
/// whole word (`"ioredis":`, `redis==5.0`, `gem 'pg'`), where one does.
pub fn line_of(text: &str, name: &str) -> Option<usize> {
    let part = |c: char| c.is_alphanumeric() || "-_.@/:".contains(c);
    text.lines()
        .position(|line| {
            line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                !before.is_some_and(part) && !after.is_some_and(|c| part(c) && c != ':' && c != '.')
            })
        })
        .map(|index| index + 1)
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
    /// Whose package names the format uses, which picks the table's section.
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

#[cfg(test)]
mod tests {
    //! The tests of each reader are beside it and read manifests through `dependencies`,
    //! with the helpers here.

    use super::*;
    use crate::model::DependencyKind;

    pub type Row = (String, Option<String>, DependencyKind, Option<String>);

    /// (name, version, kind, detail) of each dependency found, for compact assertions.
    pub fn found(relative: &str, text: &str) -> Vec<Row> {
        let dependencies = dependencies(relative, text).expect("the manifest parses");
        assert!(dependencies.iter().all(|dependency| dependency.manifest == relative));
        dependencies.into_iter().map(|d| (d.name, d.version, d.kind, d.detail)).collect()
    }

    pub fn row(name: &str, version: Option<&str>, kind: DependencyKind, detail: Option<&str>) -> Row {
        (name.into(), version.map(str::to_string), kind, detail.map(str::to_string))
    }

    /// Each (manifest, text) is an error starting with the expected words.
    pub fn malformed(cases: &[(&str, &str, &str)]) {
        for (relative, text, expected) in cases {
            let err = dependencies(relative, text).expect_err(relative);
            assert!(err.starts_with(expected), "{relative}: {err}");
        }
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
    fn a_dependency_is_found_on_the_line_that_names_it() {
        let package = "{\n  \"dependencies\": {\n    \"@types/ioredis\": \"4\",\n    \"ioredis\": \"^5\"\n  }\n}\n";
        assert_eq!(line_of(package, "ioredis"), Some(4));
        let requirements = "# redis-py below\nredis-om==0.3\nredis==5.0.1\n";
        assert_eq!(line_of(requirements, "redis"), Some(3));
        assert_eq!(line_of("gem 'pg'\n", "pg"), Some(1));
        assert_eq!(line_of("[dependencies]\nredis = \"0.25\"\n", "redis"), Some(2));
        assert_eq!(line_of("nothing here\n", "redis"), None);
    }

    #[test]
    fn a_file_that_is_no_manifest_is_an_error() {
        malformed(&[("README.md", "# hello", "not a manifest this reader knows")]);
    }
}

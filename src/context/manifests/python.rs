//! Python: pyproject.toml and requirements*.txt, which share PEP 508 requirements.

use std::sync::LazyLock;

use regex::Regex;

use super::declared::{Declared, plain_version};
use super::formats::{parse_toml, toml_declared};

/// PEP 621 `[project] dependencies` and Poetry's `[tool.poetry.dependencies]`.
pub fn pyproject(text: &str) -> Result<Vec<Declared>, String> {
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

/// pip's format: `\` continues a line, `#` after whitespace starts a comment, and lines
/// starting with `-` are options (`-r other.txt`, `-e path`, `--index-url`).
pub fn requirements(text: &str) -> Vec<Declared> {
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

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::{found, row};
    use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue, Search};

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
}

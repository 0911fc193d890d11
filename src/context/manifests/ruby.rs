//! Ruby: Gemfile.

use std::sync::LazyLock;

use regex::Regex;

use super::declared::{Declared, plain_version};

static GEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*gem\s*\(?\s*["']([^"']+)["']((?:\s*,\s*["'][^"']*["'])*)"#).expect("the pattern is valid")
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"["']([^"']*)["']"#).expect("the pattern is valid"));

/// `gem "name", "requirement", …` lines; the quoted strings after the name are its version
/// requirements (options such as `require: false` or `git:` come after them).
pub fn gemfile(text: &str) -> Vec<Declared> {
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

#[cfg(test)]
mod tests {
    use crate::context::manifests::tests::{found, row};
    use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue};

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
}

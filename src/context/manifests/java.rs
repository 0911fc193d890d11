//! Java and the JVM: Maven's pom.xml and Gradle's build.gradle(.kts). Both name a
//! package `groupId:artifactId`, which is how the table knows it.

use std::collections::HashMap;
use std::sync::LazyLock;

use quick_xml::events::{BytesRef, Event};
use regex::Regex;

use super::declared::Declared;

/// A dependency by its Maven coordinates.
fn declared(group: &str, artifact: &str, version: Option<String>) -> Declared {
    Declared::new(format!("{group}:{artifact}"), version)
}

// ---- Gradle ------------------------------------------------------------------------------

static GRADLE: LazyLock<Regex> = LazyLock::new(|| {
    // configuration, an optional `(` and `platform(`, then "group:artifact[:version[:…]]".
    Regex::new(r#"^\s*(\w+)\s*\(?\s*(?:\w+\s*\(\s*)?["']([^"'\s:]+):([^"'\s:]+)(?::([^"'\s:@]+))?[^"']*["']"#)
        .expect("the pattern is valid")
});

/// Dependencies in string notation, Groovy or Kotlin DSL. Test configurations are left
/// out like Cargo's dev-dependencies; version catalogs (`libs.x`) name no coordinates.
pub fn gradle(text: &str) -> Vec<Declared> {
    text.lines()
        .filter_map(|line| GRADLE.captures(line))
        .filter(|captures| !captures[1].starts_with("test") && !captures[1].contains("Test"))
        .map(|captures| {
            let version = captures.get(4).map(|version| version.as_str().to_string());
            declared(&captures[2], &captures[3], version)
        })
        .collect()
}

// ---- Maven -------------------------------------------------------------------------------

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
pub fn pom(text: &str) -> Result<Vec<Declared>, String> {
    let pom = read_pom(text)?;
    let runtime = pom.dependencies.iter().filter(|dependency| dependency.scope.as_deref() != Some("test"));
    Ok(pom
        .parent
        .iter()
        .chain(runtime)
        .map(|coordinate| {
            let version = coordinate.version.as_deref().map(|version| pom.resolve(version));
            declared(&coordinate.group, &coordinate.artifact, version)
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
    use crate::context::manifests::tests::{found, malformed, row};
    use crate::model::DependencyKind::{Cache, Cloud, Database, Framework, Queue};

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
    fn malformed_poms_are_errors() {
        malformed(&[
            ("pom.xml", "<project><dependencies></project>", "not valid XML: "),
            ("pom.xml", "<project><dependencies>", "not valid XML: <dependencies> is never closed"),
            ("pom.xml", "<settings></settings>", "not a Maven POM: <settings> at the top level"),
            ("pom.xml", "just text", "not a Maven POM: no <project> element"),
            ("pom.xml", "<project><version>&bogus;</version></project>", "not valid XML: unknown entity &bogus;"),
        ]);
    }
}

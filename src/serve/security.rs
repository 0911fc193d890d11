//! Who may talk to the dashboard, checked before any handler runs:
//!
//! - the `Host` a request names must be the address the server is bound to (or
//!   `localhost` on loopback), so a hostile page cannot reach it by DNS rebinding;
//! - beyond loopback, every request carries the token printed at start (a header, the
//!   cookie the first visit set, or `?token=`);
//! - a request that changes something comes from the dashboard's own origin and carries
//!   the CSRF token its pages hold, so another site cannot make a browser send it;
//! - every response forbids inline scripts and remote sources (Content-Security-Policy),
//!   framing and content sniffing.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use crate::error::{Error, Result};

/// The header a state-changing request carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
const TOKEN_COOKIE: &str = "debate_token";
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; \
                      form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

pub struct Guard {
    bind: IpAddr,
    port: u16,
    /// Required on every request when the server listens beyond loopback.
    token: Option<String>,
    csrf: String,
}

impl Guard {
    pub fn new(bind: IpAddr, port: u16) -> Result<Guard> {
        let token = match bind.is_loopback() {
            true => None,
            false => Some(random_token()?),
        };
        Ok(Guard { bind, port, token, csrf: random_token()? })
    }

    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// `Host: 127.0.0.1:8023`, `localhost:8023` on loopback, `[::1]:8023`; on an
    /// unspecified address (0.0.0.0), any address literal. A name other than
    /// `localhost` is what DNS rebinding sends, and is refused.
    fn host_allowed(&self, host: &str) -> bool {
        let (name, port) = match host.strip_prefix('[') {
            Some(rest) => match rest.split_once(']') {
                Some((name, port)) => (name, port.strip_prefix(':')),
                None => return false,
            },
            None => match host.rsplit_once(':') {
                Some((name, port)) => (name, Some(port)),
                None => (host, None),
            },
        };
        let port_matches = match port {
            Some(port) => port.parse::<u16>().is_ok_and(|p| p == self.port),
            None => self.port == 80,
        };
        let name_matches = match name.parse::<IpAddr>() {
            Ok(ip) => ip == self.bind || self.bind.is_unspecified(),
            Err(_) => name.eq_ignore_ascii_case("localhost") && (self.bind.is_loopback() || self.bind.is_unspecified()),
        };
        port_matches && name_matches
    }

    /// An `Origin` of this server: `http://` and an allowed host.
    fn origin_allowed(&self, origin: &str) -> bool {
        origin.strip_prefix("http://").is_some_and(|host| self.host_allowed(host))
    }

    /// Every token the request presents, each with whether it came in the query (then
    /// the response sets the cookie, so the link is needed once). A cookie another
    /// dashboard on this host set (cookies are per host, not per port) is only one of them.
    fn presented<'a>(&self, request: &'a Request) -> Vec<(&'a str, bool)> {
        let headers = request.headers();
        let bearer = header_text(headers, header::AUTHORIZATION.as_str()).and_then(|v| v.strip_prefix("Bearer "));
        let name = self.cookie_name();
        let cookies = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().strip_prefix(name.as_str())?.strip_prefix('='));
        let query =
            request.uri().query().into_iter().flat_map(|q| q.split('&')).filter_map(|p| p.strip_prefix("token="));
        query.map(|t| (t, true)).chain(bearer.into_iter().chain(cookies).map(|t| (t, false))).collect()
    }

    /// The token's cookie, one per port.
    fn cookie_name(&self) -> String {
        format!("{TOKEN_COOKIE}_{}", self.port)
    }
}

fn random_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|err| Error::config(format!("cannot make a random token: {err}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal strings, compared in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The middleware: every rule above, then the handler, then the response headers.
/// Every page and document through the secret gate on its way out (an event stream's
/// messages pass it one by one, `hub::Message`).
pub async fn gate(response: Response) -> Response {
    let streaming =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if streaming {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return refused(StatusCode::INTERNAL_SERVER_ERROR, "the response could not be read");
    };
    let gated = crate::text::secrets::gate_bytes(&bytes).into_owned();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(gated))
}

pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if !header_text(headers, header::HOST.as_str()).is_some_and(|host| guard.host_allowed(host)) {
        return refused(StatusCode::FORBIDDEN, "this dashboard answers only to the address it listens on");
    }
    let mut set_cookie = false;
    if let Some(token) = &guard.token {
        match guard.presented(&request).into_iter().find(|(given, _)| same(given, token)) {
            Some((_, from_query)) => set_cookie = from_query,
            None => return refused(StatusCode::UNAUTHORIZED, "this dashboard needs the token printed when it started"),
        }
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        // Browsers send Origin with every POST; a script without one has no cookies to abuse.
        let origin = header_text(headers, header::ORIGIN.as_str());
        let cross_site =
            header_text(headers, "sec-fetch-site").is_some_and(|site| !matches!(site, "same-origin" | "none"));
        if origin.is_some_and(|o| !guard.origin_allowed(o)) || cross_site {
            return refused(StatusCode::FORBIDDEN, "a request from another site cannot change a debate");
        }
        if !header_text(headers, CSRF_HEADER).is_some_and(|given| same(given, &guard.csrf)) {
            return refused(StatusCode::FORBIDDEN, "missing or wrong X-CSRF-Token header");
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if let (true, Some(token)) = (set_cookie, &guard.token)
        && let Ok(cookie) =
            HeaderValue::from_str(&format!("{}={token}; HttpOnly; SameSite=Strict; Path=/", guard.cookie_name()))
    {
        headers.insert(header::SET_COOKIE, cookie);
    }
    response
}

fn refused(status: StatusCode, message: &str) -> Response {
    ApiError::new(status, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bind: &str, port: u16) -> Guard {
        Guard::new(bind.parse().unwrap(), port).unwrap()
    }

    #[test]
    fn only_the_bound_address_is_a_valid_host() {
        let loopback = guard("127.0.0.1", 8023);
        for host in ["127.0.0.1:8023", "localhost:8023", "LOCALHOST:8023"] {
            assert!(loopback.host_allowed(host), "{host}");
        }
        for host in ["evil.example:8023", "127.0.0.1:8024", "127.0.0.2:8023", "127.0.0.1", "[::1]:8023", ""] {
            assert!(!loopback.host_allowed(host), "{host}");
        }
        let v6 = guard("::1", 9000);
        assert!(v6.host_allowed("[::1]:9000"));
        assert!(!v6.host_allowed("[::1:9000"));
        let any = guard("0.0.0.0", 9000);
        assert!(any.host_allowed("192.168.1.20:9000"));
        assert!(!any.host_allowed("rebound.example:9000"));
    }

    #[test]
    fn a_token_only_beyond_loopback() {
        assert!(guard("127.0.0.1", 1).token().is_none());
        let open = guard("0.0.0.0", 1);
        assert_eq!(open.token().map(str::len), Some(64));
        assert_ne!(open.token(), Some(open.csrf()), "the access and CSRF tokens differ");
    }

    #[test]
    fn origins_are_this_server() {
        let loopback = guard("127.0.0.1", 8023);
        assert!(loopback.origin_allowed("http://127.0.0.1:8023"));
        assert!(loopback.origin_allowed("http://localhost:8023"));
        assert!(!loopback.origin_allowed("https://127.0.0.1:8023"));
        assert!(!loopback.origin_allowed("http://evil.example:8023"));
        assert!(!loopback.origin_allowed("null"));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "abcd"));
    }
}

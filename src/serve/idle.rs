//! The dashboard's connections, served on hyper with limits a client cannot stretch: a
//! connection that says nothing (a half-open one, a request never finished) holds no
//! socket past its idle time, and a request's head must arrive whole within its own
//! deadline, so one that drips a byte at a time is closed too. An event stream is never
//! idle: its keep-alive comments go out more often than that.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// How long a connection may pass no byte either way, and how long a request's head
/// may take to arrive.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub idle: Duration,
    pub head: Duration,
}

pub const LIMITS: Limits = Limits { idle: Duration::from_secs(30), head: Duration::from_secs(10) };

/// Serve `router` on `listener` until `stop` resolves; then the connections in flight
/// are closed as their requests end.
pub async fn serve(listener: TcpListener, router: axum::Router, limits: Limits, stop: impl Future<Output = ()>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.head);
    let graceful = GracefulShutdown::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, a connection reset before it was accepted: go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let io = TokioIo::new(IdleStream::new(stream, limits.idle));
        let connection = http.serve_connection(io, TowerToHyperService::new(router.clone()));
        tokio::spawn(graceful.watch(connection));
    }
    graceful.shutdown().await;
}

/// A connection whose reads and writes fail with `TimedOut` once it has been silent for
/// its `idle` time; each byte that passes starts the time again.
pub struct IdleStream {
    stream: TcpStream,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl IdleStream {
    fn new(stream: TcpStream, idle: Duration) -> IdleStream {
        IdleStream { stream, idle, deadline: Box::pin(tokio::time::sleep(idle)) }
    }

    fn active(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
    }

    /// A result that is still pending while the connection has been silent too long.
    fn expired<T>(&mut self, cx: &mut Context<'_>, pending: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match (pending, self.deadline.as_mut().poll(cx)) {
            (Poll::Pending, Poll::Ready(())) => {
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the connection was idle")))
            }
            (result, _) => result,
        }
    }
}

impl AsyncRead for IdleStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.active();
        }
        self.expired(cx, polled)
    }
}

impl AsyncWrite for IdleStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.active();
        }
        self.expired(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A server with these limits, on a port of its own.
    async fn server(limits: Limits) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let router = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
        tokio::spawn(serve(listener, router, limits, std::future::pending()));
        address
    }

    /// A request started and never finished, and a connection that never says a word,
    /// are both closed by the server; a finished request is answered.
    #[tokio::test]
    async fn silent_and_half_open_connections_are_closed() {
        let idle = Duration::from_millis(300);
        let address = server(Limits { idle, head: Duration::from_secs(60) }).await;

        let mut answered = TcpStream::connect(address).await.unwrap();
        answered.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
        let mut head = [0u8; 12];
        answered.read_exact(&mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");

        for opening in [&b""[..], b"GET / HTTP/1.1\r\nHost: x\r\n"] {
            let mut client = TcpStream::connect(address).await.unwrap();
            client.write_all(opening).await.unwrap();
            let mut rest = Vec::new();
            // Closed by the server: the read ends, well before the test's own limit.
            let read = tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut rest)).await;
            assert!(matches!(read, Ok(Ok(_)) | Ok(Err(_))), "{opening:?}: the connection stayed open");
        }
    }

    /// A request head that drips in a byte at a time, each byte well within the idle
    /// time, is closed at the head's deadline.
    #[tokio::test]
    async fn a_request_head_that_drips_in_is_closed_at_its_deadline() {
        let address = server(Limits { idle: Duration::from_secs(60), head: Duration::from_millis(400) }).await;
        let mut client = TcpStream::connect(address).await.unwrap();
        let dripping = async {
            for byte in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
                if client.write_all(&[*byte]).await.is_err() {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            false
        };
        // Written in under the idle time a byte, yet cut: the writes fail, or the read ends.
        let cut = tokio::time::timeout(Duration::from_secs(20), dripping).await.unwrap_or(false);
        let mut rest = Vec::new();
        let ended = tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut rest)).await;
        assert!(cut || matches!(ended, Ok(Ok(_)) | Ok(Err(_))), "the dripping connection stayed open");
        let answer = String::from_utf8_lossy(&rest);
        assert!(!answer.contains("200 OK"), "{answer}");
    }
}

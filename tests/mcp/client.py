"""`debate mcp` driven by the official MCP Python SDK (PyPI `mcp`), as a coding agent drives it,
in both eras of the protocol: 2025-11-25 (the `initialize` handshake, as a session and as the
high-level client's legacy mode) and 2026-07-28 (the high-level client's default: discovery, each
request carrying its version; checkpoints as input-required results; a debate as a task for a
client with the tasks extension).

Run by tests/it/mcp_python.rs:

    python client.py DEBATE_BINARY REPOSITORY PLAIN_DIRECTORY

REPOSITORY is a git repository the server runs in (and commits records into); PLAIN_DIRECTORY
is no repository. The server inherits this process's environment (its home and state
database). Prints PASS/FAIL per scenario and ends with "N passed, N failed"; exits 1 when
anything failed.
"""

import json
import os
import subprocess
import sys
import traceback

from typing import Any, Literal

import anyio
import mcp.client.session as session_module
import mcp.types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import stdio_client
from pydantic import ConfigDict, TypeAdapter

BINARY, REPOSITORY, PLAIN = sys.argv[1], sys.argv[2], sys.argv[3]
QUESTION = "Should we use Redis or Postgres for caching?"
TOOLS = {
    "check_decisions",
    "check_providers",
    "evaluate_decision",
    "list_debates",
    "resume_debate",
    "review_decision",
    "search_decisions",
    "set_decision_status",
    "show_debate",
    "start_debate",
    "verify_decision",
}


def server(cwd: str = REPOSITORY, allow: tuple[str, ...] = ()) -> StdioServerParameters:
    allowed = [arg for directory in allow for arg in ("--allow", directory)]
    return StdioServerParameters(command=BINARY, args=["mcp", *allowed], env=dict(os.environ), cwd=cwd)


def debate_json(*args: str) -> object:
    """What `debate ARGS --json` prints, run in the repository."""
    out = subprocess.run([BINARY, *args, "--json"], cwd=REPOSITORY, capture_output=True, check=True)
    return json.loads(out.stdout)


def files_under(*roots: str) -> dict[str, bytes]:
    """Every file under the roots (git's objects included), with its bytes."""
    found = {}
    for root in roots:
        for directory, _, names in os.walk(root):
            for name in names:
                path = os.path.join(directory, name)
                with open(path, "rb") as file:
                    found[path] = file.read()
    return found


class Elicitor:
    """The user behind the client: answers each checkpoint from a script, then `continue`;
    with `hold`, waits until released and cancels."""

    def __init__(self) -> None:
        self.answers: list[types.ElicitResult] = []
        self.asked: list[types.ElicitRequestParams] = []
        self.hold = False
        self.waiting = anyio.Event()
        self.release = anyio.Event()

    async def __call__(self, context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        if self.hold:
            self.waiting.set()
            await self.release.wait()
            return types.ElicitResult(action="cancel")
        if self.answers:
            return self.answers.pop(0)
        return types.ElicitResult(action="accept", content={"action": "continue"})


def structured(result: types.CallToolResult) -> dict:
    assert result.is_error is False, result.content[0].text
    assert result.structured_content is not None, result
    return result.structured_content


async def offline_debate(session: ClientSession, question: str = QUESTION, **extra: object) -> types.CallToolResult:
    arguments = {"question": question, "offline": True, "max_rounds": 2, **extra}
    return await session.call_tool("start_debate", arguments)


# ---------------------------------------------------------------- 2025-11-25: one session, a user behind it


async def t_tools_and_their_schemas(s: ClientSession, _: Elicitor, __: dict) -> None:
    assert s.protocol_version == "2025-11-25", s.protocol_version
    assert s.initialize_result is not None and s.initialize_result.server_info.name == "debate"
    assert s.server_info is not None and s.server_info.name == "debate"
    tools = {tool.name: tool for tool in (await s.list_tools()).tools}
    assert set(tools) == TOOLS, sorted(tools)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
    assert tools["start_debate"].input_schema["required"] == ["question"]
    assert "before proposing a change" in tools["search_decisions"].description


async def t_an_offline_debate_with_progress(s: ClientSession, _: Elicitor, shared: dict) -> None:
    steps: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, message))

    arguments = {"question": QUESTION, "offline": True, "max_rounds": 2, "checkpoints": False}
    result = await s.call_tool("start_debate", arguments, progress_callback=on_progress)
    debate = structured(result)
    said = result.content[0].text
    assert debate["status"] == "complete" and said.startswith(f"Debate {debate['id']} is complete"), said
    assert "═══ Decision ═══" in said, said
    messages = [message or "" for _, message in steps]
    for step in ["Analysis", "argument is in", "evaluated", "Synthesis", "committed as"]:
        assert any(step in m for m in messages), (step, messages)
    assert [p for p, _ in steps] == sorted(p for p, _ in steps), steps
    log = subprocess.run(["git", "log", "--format=%b"], cwd=REPOSITORY, capture_output=True, text=True).stdout
    assert f"Debate-Id: {debate['id']}" in log, log
    assert debate == debate_json("show", debate["id"]), "structuredContent is `debate show --json`"
    shared["id"] = debate["id"]


async def t_the_record_is_found_every_way(s: ClientSession, _: Elicitor, shared: dict) -> None:
    id = shared["id"]
    shown = await s.call_tool("show_debate", {"id": id})
    assert structured(shown) == debate_json("show", id)
    assert shown.content[0].text.startswith(f"{id}  complete"), shown.content[0].text
    listed = structured(await s.call_tool("list_debates", {}))
    assert listed["debates"] == debate_json("list"), listed
    found = structured(await s.call_tool("search_decisions", {"query": "caching with Redis"}))
    assert found["records"][0]["id"] == id and found["records"][0]["status"] == "proposed", found
    resources = (await s.list_resources()).resources
    uri = f"decision://{id}"
    assert uri in [str(r.uri) for r in resources], resources
    read = (await s.read_resource(uri)).contents[0]
    assert isinstance(read, types.TextResourceContents) and read.mime_type == "text/markdown"
    record = found["records"][0]["path"]
    with open(os.path.join(REPOSITORY, record), encoding="utf-8") as file:
        assert read.text == file.read()


async def t_a_checkpoint_guided_then_one_cancelled_and_resumed(s: ClientSession, e: Elicitor, _: dict) -> None:
    guidance = "Weigh what running Redis costs the on-call team."
    e.answers = [types.ElicitResult(action="accept", content={"action": "guide", "guidance": guidance})]
    guided = structured(await offline_debate(s, max_rounds=3))
    asked = e.asked[0]
    assert isinstance(asked, types.ElicitRequestFormParams), asked
    assert asked.requested_schema["properties"]["action"]["enum"] == ["continue", "guide", "end", "pause"]
    assert debate_json("show", guided["id"])["transcript"][1]["guidance"] == guidance

    e.answers = [types.ElicitResult(action="cancel")]
    result = await offline_debate(s, "Kafka or RabbitMQ for the order events?", max_rounds=3)
    paused = structured(result)
    assert paused["status"] == "paused", paused
    assert "resume_debate" in result.content[0].text, result.content[0].text
    resumed = structured(await s.call_tool("resume_debate", {"id": paused["id"]}))
    assert resumed["status"] == "complete" and resumed["id"] == paused["id"], resumed


async def t_a_cancelled_call_pauses_its_debate(s: ClientSession, e: Elicitor, _: dict) -> None:
    e.hold = True
    async with anyio.create_task_group() as group:

        async def call() -> None:
            await offline_debate(s, "GraphQL or REST for the public API?", max_rounds=3)
            raise AssertionError("the call should have been cancelled")

        group.start_soon(call)
        await e.waiting.wait()
        group.cancel_scope.cancel()
    for _ in range(200):
        debates = structured(await s.call_tool("list_debates", {}))["debates"]
        if debates[0]["status"] == "paused":
            break
        await anyio.sleep(0.05)
    else:
        raise AssertionError(f"the debate did not pause: {debates[0]}")
    e.release.set()
    e.hold = False


async def t_a_refused_repository_writes_nothing(s: ClientSession, _: Elicitor, __: dict) -> None:
    home = os.environ["DEBATE_HOME"]
    before = files_under(REPOSITORY, home)
    result = await s.call_tool("start_debate", {"question": QUESTION, "offline": True, "repository": PLAIN})
    assert result.is_error is True and "outside what this server may touch" in result.content[0].text, result.content
    result = await s.call_tool("start_debate", {"question": " ", "offline": True})
    assert result.is_error is True and "the question is empty" in result.content[0].text, result.content
    result = await s.call_tool("start_debate", {"question": QUESTION, "max_rounds": 99})
    assert result.is_error is True and "max_rounds" in result.content[0].text, result.content
    assert files_under(REPOSITORY, home) == before, "nothing written"


MAIN = [
    t_tools_and_their_schemas,
    t_an_offline_debate_with_progress,
    t_the_record_is_found_every_way,
    t_a_checkpoint_guided_then_one_cancelled_and_resumed,
    t_a_cancelled_call_pauses_its_debate,
    t_a_refused_repository_writes_nothing,
]


# ---------------------------------------------------------------- other clients


async def t_the_first_root_is_the_repository() -> None:
    async def roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{REPOSITORY}", name="project")])

    # Allowed both, started where no repository is: the client's root narrows it to one.
    async with stdio_client(server(cwd=PLAIN, allow=(REPOSITORY, PLAIN))) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as s:
            await s.initialize()
            listed = structured(await s.call_tool("list_debates", {}))
            assert listed["debates"] and listed["debates"][0]["repository"] == REPOSITORY, listed
            result = await s.call_tool("list_debates", {"repository": PLAIN})
            assert result.is_error is True and "outside what this server may touch" in result.content[0].text, result


async def t_a_client_that_cannot_ask_runs_without_checkpoints() -> None:
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            result = await offline_debate(s, "Monorepo or one repository per service?", max_rounds=3)
            assert structured(result)["status"] == "complete"
            assert "Checkpoints were off" in result.content[0].text, result.content[0].text


async def t_the_high_level_clients_legacy_mode_speaks_the_handshake() -> None:
    async with Client(server(), mode="legacy") as client:
        assert client.protocol_version == "2025-11-25", client.protocol_version
        assert client.session.initialize_result is not None and client.server_info.name == "debate"
        await client.list_tools()
        result = await client.call_tool("search_decisions", {"query": "caching"})
        assert result.structured_content["records"], result


OTHERS = [
    t_the_first_root_is_the_repository,
    t_a_client_that_cannot_ask_runs_without_checkpoints,
    t_the_high_level_clients_legacy_mode_speaks_the_handshake,
]


# ---------------------------------------------------------------- 2026-07-28, the default client

MODERN = "2026-07-28"
READ_ONLY = {"list_debates", "show_debate", "search_decisions", "verify_decision", "check_providers", "check_decisions"}
CALLS_A_MODEL = {"start_debate", "resume_debate", "review_decision", "evaluate_decision", "check_providers"}
CACHEABLE = {"tools/list", "prompts/list", "resources/list", "resources/templates/list"}

# Every result the SDK receives at 2026-07-28, as it came over the wire (method, result).
WIRE: list[tuple[str, dict]] = []
_validate = session_module._methods.validate_server_result


def _recording(method: str, version: str, raw: Any) -> Any:
    if version == MODERN:
        WIRE.append((method, raw))
    return _validate(method, version, raw)


session_module._methods.validate_server_result = _recording

# A record another ADR tool wrote: the order events are named only in the body of its question.
BROKER = (
    "# Use a message broker\n\n* Status: accepted\n\n## Context and Problem Statement\n\n"
    "Checkout must hand every order event to billing and shipping without losing one.\n\n"
    "## Decision Outcome\n\nChosen option: \"RabbitMQ\", because the team runs it already.\n"
)


def modern_client(**options: Any) -> Client:
    return Client(server(), **options)


async def m_negotiates_the_current_revision_without_initialize() -> None:
    async with modern_client() as client:
        assert client.protocol_version == MODERN, client.protocol_version
        assert client.session.initialize_result is None and client.session.discover_result is not None
        assert client.server_info is not None and client.server_info.name == "debate", client.server_info
        assert MODERN in client.session.discover_result.supported_versions
        assert "2025-11-25" in client.session.discover_result.supported_versions
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS, sorted(tools)
        for name, tool in tools.items():
            hints = tool.annotations
            assert tool.title and tool.output_schema and hints is not None, name
            assert tool.input_schema.get("additionalProperties") is False, name
            assert hints.read_only_hint is (name in READ_ONLY), (name, hints)
            assert hints.open_world_hint is (name in CALLS_A_MODEL), (name, hints)
            assert name in READ_ONLY or hints.destructive_hint is False, (name, hints)
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        assert {"decide", "review"} <= set(prompts), prompts
        got = await client.get_prompt("decide", {"question": QUESTION})
        assert QUESTION in got.messages[0].content.text, got
        await client.list_resources()
    listed = [raw for method, raw in WIRE if method in CACHEABLE]
    assert listed and all("ttlMs" in raw and "cacheScope" in raw for raw in listed), listed
    assert all("resultType" in raw for _, raw in WIRE), [m for m, raw in WIRE if "resultType" not in raw]


async def m_a_debate_with_progress_toward_its_total() -> None:
    steps: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, total, message))

    async with modern_client() as client:
        await client.list_tools()
        arguments = {"question": "Monorepo or one repository per service?", "offline": True, "max_rounds": 3}
        result = await client.call_tool("start_debate", arguments, progress_callback=on_progress)
        debate = structured(result)
        assert debate["status"] == "complete", debate
        assert "Checkpoints were off" in result.content[0].text, result.content[0].text
    numbers = [progress for progress, _, _ in steps]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), steps
    totals = {total for _, total, _ in steps if total is not None}
    assert totals == {5.0}, steps
    assert steps[-1][0] == 5.0 and "committed as" in (steps[-1][2] or ""), steps[-1]


async def m_a_checkpoint_asks_through_input_required_results() -> None:
    asked: list[tuple[object, types.ElicitRequestParams]] = []
    guidance = "Weigh what running Kafka costs the on-call team."

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append((context.request_id, params))
        if len(asked) == 1:
            return types.ElicitResult(action="accept", content={"action": "guide", "guidance": guidance})
        return types.ElicitResult(action="accept", content={"action": "end"})

    async with modern_client(elicitation_callback=elicit) as client:
        await client.list_tools()
        arguments = {"question": "Kafka or RabbitMQ for the audit events?", "offline": True, "max_rounds": 4}
        debate = structured(await client.call_tool("start_debate", arguments))
    # Each question came inside a result (its key), never as a request of the server's (an id).
    assert [key for key, _ in asked] == ["checkpoint", "checkpoint"], asked
    assert isinstance(asked[0][1], types.ElicitRequestFormParams), asked
    assert debate["status"] == "complete" and debate["ended_by"] == "human", debate
    assert debate["transcript"][1]["guidance"] == guidance, debate["transcript"][1]
    with open(debate["record_path"], encoding="utf-8") as file:
        assert guidance in file.read(), "the guidance is in the committed record"
    log = subprocess.run(["git", "log", "--format=%b"], cwd=REPOSITORY, capture_output=True, text=True).stdout
    assert f"Debate-Id: {debate['id']}" in log, log
    assert any(raw.get("resultType") == "input_required" for method, raw in WIRE if method == "tools/call")


async def m_search_finds_a_record_by_its_question() -> None:
    path = os.path.join(REPOSITORY, "docs", "decisions", "0001-use-a-message-broker.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write(BROKER)
    async with modern_client() as client:
        await client.list_tools()
        query = {"query": "What carries work from checkout to billing and shipping?"}
        found = structured(await client.call_tool("search_decisions", query))
    first = found["records"][0]
    assert first["path"] == "docs/decisions/0001-use-a-message-broker.md", found
    assert first["matched"] == ["billing", "checkout", "shipping"] and first["relevance"] > 0, first


async def m_an_agent_checks_a_change_against_the_guards() -> None:
    path = os.path.join(REPOSITORY, "docs", "adr", "0009-no-kafka.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write("# No Kafka\n\n## Status\n\nAccepted\n\n### Guards\n\n- `forbid path **/kafka.properties`\n")
    with open(os.path.join(REPOSITORY, "kafka.properties"), "w", encoding="utf-8") as file:
        file.write("bootstrap.servers=localhost:9092\n")
    try:
        async with modern_client() as client:
            await client.list_tools()
            checked = structured(await client.call_tool("check_decisions", {}))
    finally:
        os.remove(path)
        os.remove(os.path.join(REPOSITORY, "kafka.properties"))
    assert checked["exit_code"] == 1, checked
    found = [v["found"] for v in checked["violations"]]
    assert {"kind": "path", "path": "kafka.properties"} in found, checked


async def m_another_repository_is_refused() -> None:
    home = os.environ["DEBATE_HOME"]
    before = files_under(REPOSITORY, home)
    async with modern_client() as client:
        result = await client.call_tool("start_debate", {"question": QUESTION, "offline": True, "repository": PLAIN})
        assert result.is_error is True and "outside what this server may touch" in result.content[0].text, result
    assert files_under(REPOSITORY, home) == before, "nothing written"


class TaskHandle(types.Result):
    """What `tools/call` answers a client with the tasks extension: the task's handle."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskState(types.Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict | None = None


class TaskParams(types.RequestParams):
    task_id: str


class TaskAnswers(TaskParams):
    input_responses: dict[str, Any]


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[TaskAnswers, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class Acknowledged(types.Result):
    model_config = ConfigDict(extra="allow")


class Tasks(ClientExtension):
    """The tasks extension as a client would implement it: a task followed to its result, its
    questions answered through the client's own elicitation callback with `tasks/update`."""

    identifier = "io.modelcontextprotocol/tasks"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def claims(self) -> list[ResultClaim]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.follow)]

    async def follow(self, handle: TaskHandle, context: ClaimContext) -> types.CallToolResult:
        session = context.session
        inputs = TypeAdapter(types.InputRequest)
        while True:
            state = await session.send_request(GetTask(params=TaskParams(task_id=handle.task_id)), TaskState)
            self.seen.append(state.status)
            if state.status == "completed":
                return types.CallToolResult.model_validate(state.result)
            if state.status != "working" and state.status != "input_required":
                raise AssertionError(f"the task ended {state.status}")
            if state.status == "input_required":
                answers = {}
                for key, raw in (state.model_extra or {}).get("inputRequests", {}).items():
                    asked = ClientRequestContext(session=session, request_id=key)
                    answer = await session.dispatch_input_request(asked, inputs.validate_python(raw))
                    answers[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
                params = TaskAnswers(task_id=handle.task_id, input_responses=answers)
                await session.send_request(UpdateTask(params=params), Acknowledged)
            await anyio.sleep((handle.poll_interval_ms or 100) / 1000)


async def m_a_debate_is_a_task_for_a_client_with_the_extension() -> None:
    async def end(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"action": "end"})

    tasks = Tasks()
    async with modern_client(extensions=[tasks], elicitation_callback=end) as client:
        await client.list_tools()
        arguments = {"question": "GraphQL or REST for the partner API?", "offline": True, "max_rounds": 3}
        debate = structured(await client.call_tool("start_debate", arguments))
    assert debate["status"] == "complete" and debate["ended_by"] == "human", debate
    assert "input_required" in tasks.seen and tasks.seen[-1] == "completed", tasks.seen
    assert any(raw.get("resultType") == "task" for method, raw in WIRE if method == "tools/call")


CURRENT = [
    m_negotiates_the_current_revision_without_initialize,
    m_a_debate_with_progress_toward_its_total,
    m_a_checkpoint_asks_through_input_required_results,
    m_search_finds_a_record_by_its_question,
    m_an_agent_checks_a_change_against_the_guards,
    m_another_repository_is_refused,
    m_a_debate_is_a_task_for_a_client_with_the_extension,
]


async def main() -> int:
    passed = failed = 0

    def report(name: str, err: BaseException | None) -> None:
        nonlocal passed, failed
        if err is None:
            passed += 1
            print(f"PASS {name}", flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {err!r}", flush=True)
            traceback.print_exception(err)

    shared: dict = {}
    elicitor = Elicitor()
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitor) as session:
            await session.initialize()
            for test in MAIN:
                try:
                    with anyio.fail_after(60):
                        await test(session, elicitor, shared)
                    report(test.__name__, None)
                except Exception as err:  # noqa: BLE001
                    report(test.__name__, err)
    for test in OTHERS + CURRENT:
        try:
            with anyio.fail_after(60):
                await test()
            report(test.__name__, None)
        except Exception as err:  # noqa: BLE001
            report(test.__name__, err)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))

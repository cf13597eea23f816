"""The sandbox itself: a Bot API server on 127.0.0.1 plus the world it serves.

Telegram is out of reach from the test machines, so the bot talks real HTTP to this
server instead, through aiogram's ordinary session. `Sandbox` owns the simulated world
(people, groups, messages), answers Bot API requests strictly (see `schema` and
`botapi`), logs every call with the sandbox clock, can enforce Telegram's flood limits or
inject 429s, and tells a test when the bot has finished reacting (`settle`).

It runs inside a test's event loop (`await sandbox.start()`, port chosen by the OS) or
as its own process (`python -m sandbox`), where the JSON control API under
`/_sandbox/` lets a test in another process drive it. Without a server at all,
`Sandbox.call` answers a request in process as the server would (tests/middle).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from aiohttp import web

from sandbox.api_errors import ApiError, SettleTimeout, SimulationError
from sandbox.botapi import BotApi
from sandbox.calllog import SENDING_METHODS, CallRecord
from sandbox.control import control_routes
from sandbox.people import SimGroup, SimUser
from sandbox.ratelimit import LIMITED_METHODS, RateLimiter, RateLimits
from sandbox.schema import ApiSchema, MethodSpec, UploadedFile
from sandbox.webhook import WebhookDelivery
from sandbox.world import Account, Chat, Clock, Group, PrivateChat, ScopeKey, SimMessage, World

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.client.telegram import TelegramAPIServer

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"\d+:[A-Za-z0-9_-]+")
_MAX_UPLOAD = 50 * 1024 * 1024
_SHORT_TIME = "%H:%M:%S"
# What a Bot API request is answered: the HTTP status and the JSON body.
Answer = tuple[int, dict[str, Any]]


class Sandbox:
    """A simulated Telegram for one bot.

    `rate_limits` turns Telegram's flood limits on (True for the usual ones, or a
    `RateLimits`); `flaky_429` answers that fraction of calls (getUpdates excepted) with
    429 "retry after `flaky_retry_after`", chosen by a generator seeded with `seed`.
    `local_mode` is a Bot API server started with `--local`: it accepts a webhook on
    plain HTTP, any port and a local address (a bot on 127.0.0.1), which Telegram doesn't.
    A token other than `token` is answered 401 Unauthorized, as Telegram answers a revoked
    one, unless `any_token` (the standalone process serves whichever bot connects).
    """

    def __init__(
        self,
        bot_username: str = "mafia_table_bot",
        *,
        bot_name: str = "Mafia Table",
        bot_id: int = 7_000_000_001,
        clock: Clock | None = None,
        privacy_mode: bool = True,
        rate_limits: bool | RateLimits = False,
        flaky_429: float = 0.0,
        flaky_retry_after: int = 1,
        seed: int = 0,
        local_mode: bool = False,
        any_token: bool = False,
    ):
        self.clock: Clock = clock or time.time
        self.bot = Account(bot_id, bot_name, username=bot_username, is_bot=True)
        self.world = World(self.bot, self.clock, privacy_mode=privacy_mode)
        self.token = f"{bot_id}:sandbox-token"
        self.any_token = any_token
        self.world.bot_token = self.token
        self.schema = ApiSchema.load()
        self.api = BotApi(self.world, local_mode=local_mode)
        self.webhook_delivery = WebhookDelivery(self.world.updates, self.clock, self._touch)
        limits = RateLimits() if rate_limits is True else rate_limits or None
        self._limiter = RateLimiter(limits) if limits else None
        self._flaky = flaky_429
        self._flaky_retry_after = flaky_retry_after
        self._rng = random.Random(seed)
        self._calls: list[CallRecord] = []
        self._call_count = 0
        # Called with every call as it is logged (a benchmark measures the bot with it);
        # `keep_calls = False` stops the log from keeping them, for runs of many calls.
        self.observers: list[Callable[[CallRecord], None]] = []
        self.keep_calls = True
        self._in_flight = 0
        self._last_activity = 0.0
        self._activity: asyncio.Event | None = None
        self._next_user_id = 100_001
        self._runner: web.AppRunner | None = None
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.app = self._build_app()

    # -- the simulated world --------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "ru",
    ) -> SimUser:
        user = SimUser(
            self.world,
            self._next_user_id,
            first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
        )
        self._next_user_id += 1
        self.world.users[user.id] = user
        return user

    def add_supergroup(
        self, title: str, owner: SimUser, *, username: str | None = None
    ) -> SimGroup:
        """A supergroup owned by `owner`, without the bot (see `SimGroup.add_bot`)."""
        group_id = self.world.new_group_id(supergroup=True)
        group = SimGroup(self.world, group_id, title, owner, username)
        self.world.groups[group.id] = group
        return group

    def add_group(self, title: str, owner: SimUser) -> SimGroup:
        """A basic group (Chat type "group", no @username, no topics) owned by `owner`,
        without the bot; `SimGroup.migrate_to_supergroup` upgrades it as Telegram does."""
        group_id = self.world.new_group_id(supergroup=False)
        group = SimGroup(self.world, group_id, title, owner, None, supergroup=False)
        self.world.groups[group.id] = group
        return group

    def user(self, user_id: int) -> SimUser:
        user = self.world.users.get(user_id)
        if not isinstance(user, SimUser):
            raise SimulationError(f"no user {user_id}")
        return user

    def group(self, chat_id: int) -> SimGroup:
        group = self.world.groups.get(chat_id)
        if not isinstance(group, SimGroup):
            raise SimulationError(f"no group {chat_id}")
        return group

    def chat(self, chat_id: int) -> Chat:
        chat = self.world.find_chat(chat_id)
        if chat is None:
            raise SimulationError(f"no chat {chat_id}")
        return chat

    def message(self, chat: Chat | int, message_id: int) -> SimMessage:
        """A message by chat and id, deleted or not (say, from an aiogram Message)."""
        where = chat if isinstance(chat, Chat) else self.chat(chat)
        for message in where.messages():
            if message.message_id == message_id:
                return message
        raise SimulationError(f"no message {message_id} in chat {where.id}")

    def command_menu(
        self, user: Account, chat: Chat | None = None, language_code: str | None = None
    ) -> list[dict[str, str]]:
        """The commands Telegram's menu would show `user` in `chat` (private if omitted).

        Scopes are tried from the narrowest, each first in the user's language and then
        without one, as Telegram resolves them.
        """
        language = language_code if language_code is not None else (user.language_code or "")
        scopes: list[ScopeKey] = []
        if isinstance(chat, Group):
            admin = chat.member(user).is_admin
            scopes.append(ScopeKey("chat_member", chat.id, user.id))
            if admin:
                scopes.append(ScopeKey("chat_administrators", chat.id))
            scopes.append(ScopeKey("chat", chat.id))
            if admin:
                scopes.append(ScopeKey("all_chat_administrators"))
            scopes.append(ScopeKey("all_group_chats"))
        else:
            scopes += [ScopeKey("chat", user.id), ScopeKey("all_private_chats")]
        scopes.append(ScopeKey("default"))
        for scope in scopes:
            for lang in dict.fromkeys((language[:2], "")):
                commands = self.world.commands.get((scope, lang))
                if commands:
                    return list(commands)
        return []

    # -- running --------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on `host:port` (port 0: any free one) and return the base URL."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        self.host, self.port = host, sock.getsockname()[1]
        self._runner = web.AppRunner(
            self.app, handler_cancellation=True, access_log=None, shutdown_timeout=1.0
        )
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()
        self.webhook_delivery.start()
        return self.base_url

    async def stop(self) -> None:
        await self.webhook_delivery.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("the sandbox is not serving; await start() first")
        return f"http://{self.host}:{self.port}"

    @property
    def api_server(self) -> TelegramAPIServer:
        from aiogram.client.telegram import TelegramAPIServer

        return TelegramAPIServer.from_base(self.base_url)

    def make_bot(self, **kwargs: Any) -> Bot:
        """An aiogram Bot talking to this sandbox; close its session when done."""
        from aiogram import Bot

        from bot.delivery.runtime import PlainHttpSession

        return Bot(self.token, session=PlainHttpSession(api=self.api_server), **kwargs)

    # -- observing the bot ----------------------------------------------------------------

    def calls(
        self,
        method: str | Iterable[str] | None = None,
        *,
        chat: Chat | int | None = None,
        ok: bool | None = None,
    ) -> list[CallRecord]:
        """Logged calls, oldest first, filtered by method name(s), target chat, outcome."""
        names = {method} if isinstance(method, str) else set(method or ())
        chat_id = chat.id if isinstance(chat, Chat) else chat
        return [
            record
            for record in self._calls
            if (not names or record.method in names)
            and (chat_id is None or record.chat_id == chat_id)
            and (ok is None or record.ok == ok)
        ]

    def peak_messages(self, chat: Chat | int, *, window: float = 60.0) -> int:
        """The most messages the bot put into `chat` within any `window` seconds."""
        times = [record.time for record in self.calls(SENDING_METHODS, chat=chat, ok=True)]
        start = peak = 0
        for end, moment in enumerate(times):
            while moment - times[start] >= window:
                start += 1
            peak = max(peak, end - start + 1)
        return peak

    def rejected(self) -> list[CallRecord]:
        """Every call the sandbox refused, for whatever reason."""
        return [record for record in self._calls if not record.ok]

    def bot_errors(self, allow: Iterable[str] = ()) -> list[CallRecord]:
        """Refusals caused by the bot's own requests (see `CallRecord.is_bot_error`),
        except those whose description contains one of the `allow` fragments."""
        allowed = tuple(allow)
        return [
            record
            for record in self._calls
            if record.is_bot_error
            and not any(fragment in (record.description or "") for fragment in allowed)
        ]

    def assert_no_bot_errors(self, allow: Iterable[str] = ()) -> None:
        errors = self.bot_errors(allow)
        if errors:
            listing = "\n".join(f"  {record}" for record in errors)
            raise AssertionError(f"the bot made {len(errors)} bad request(s):\n{listing}")

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        return self.world.updates.pending

    async def wait_polling(self, *, within: float = 5.0) -> None:
        """Wait until the bot has a long poll open, i.e. it is up and listening."""
        async with asyncio.timeout(within):
            await self.world.updates.wait_polling()

    async def settle(self, *, quiet: float = 0.05, within: float = 5.0) -> None:
        """Wait until the bot has confirmed every update and made no call for `quiet` s.

        A bot polled by aiogram's dispatcher with `handle_as_tasks=False` confirms an
        update only after handling it, which makes this exact; with handlers run as tasks
        the quiet period is what covers a handler still at work.
        """
        loop = asyncio.get_running_loop()
        activity = self._activity_event()
        deadline = loop.time() + within
        while True:
            now = loop.time()
            busy = bool(self.world.updates.pending) or self._in_flight > 0
            idle_for = now - self._last_activity
            if not busy and idle_for >= quiet:
                return
            if now >= deadline:
                raise SettleTimeout(
                    f"the bot did not settle within {within} s: "
                    f"{len(self.world.updates.pending)} unconfirmed update(s), "
                    f"{self._in_flight} call(s) in progress"
                )
            wait = deadline - now if busy else min(deadline - now, quiet - idle_for)
            activity.clear()
            try:
                async with asyncio.timeout(wait):
                    await activity.wait()
            except TimeoutError:
                continue

    def quiet_for(self) -> float:
        """Seconds since the bot's last call ended (0 while a call is in progress).

        With updates still unconfirmed, a quiet bot is waiting on something other than
        Telegram, such as a virtual clock that the test has to move.
        """
        if self._in_flight > 0:
            return 0.0
        return asyncio.get_running_loop().time() - self._last_activity

    def transcript(
        self, chat: Chat | None = None, order: Callable[[SimMessage], Any] | None = None
    ) -> str:
        """Every chat (or one) as readable lines, in the order things happened (or `order`)."""
        chats = [chat] if chat is not None else list(self.world.chats())
        messages = sorted((m for c in chats for m in c.messages()), key=order or (lambda m: m.seq))
        return "\n".join(_transcript_line(message) for message in messages)

    # -- serving the Bot API --------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=_MAX_UPLOAD)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_bot_api)
        app.add_routes(control_routes(self))
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _on_shutdown(self, app: web.Application) -> None:
        self.world.updates.close()

    def _activity_event(self) -> asyncio.Event:
        if self._activity is None:
            self._activity = asyncio.Event()
        return self._activity

    def _touch(self) -> None:
        self._last_activity = asyncio.get_running_loop().time()
        self._activity_event().set()

    async def _handle_bot_api(self, request: web.Request) -> web.Response:
        self._touch()
        name, token = request.match_info["method"], request.match_info["token"]
        method = self.schema.method(name)
        raw: dict[str, Any] = {}
        files: dict[str, UploadedFile] = {}
        # A method or token refused is refused before its body is read, as Telegram does.
        if method is not None and self._refusal(token) is None:
            try:
                raw, files = await _read_params(request, method)
            except ApiError as error:
                status, payload = self._answer(method.name, raw, error)
                return web.json_response(payload, status=status, dumps=_dumps)
        status, payload = await self.call(token, name, raw, files)
        return web.json_response(payload, status=status, dumps=_dumps)

    async def call(
        self,
        token: str,
        name: str,
        raw: dict[str, Any],
        files: Mapping[str, UploadedFile] | None = None,
    ) -> Answer:
        """One Bot API request answered in process: (HTTP status, JSON body).

        The path every request over HTTP takes once its body is read (token, schema,
        flood limits, the method, the answer's check, the call log), so a caller that
        skips the network (tests/middle) meets the same answers, refusals and rights.
        `raw` holds the parameters as a request carries them: text, or JSON text for
        objects, as aiogram's session sends them; `files` the uploaded parts.
        """
        method = self.schema.method(name)
        refusal = ApiError.not_found() if method is None else self._refusal(token)
        if method is None or refusal is not None:
            assert refusal is not None
            return self._answer(name, {}, refusal)
        try:
            params = self.schema.parse_params(method, raw, files or {})
        except ApiError as error:
            return self._answer(method.name, raw, error)
        if method.name == "getUpdates":
            return await self._get_updates(method, params)
        self._in_flight += 1
        try:
            return self._execute(method, params)
        finally:
            self._in_flight -= 1
            self._touch()

    def _refusal(self, token: str) -> ApiError | None:
        """What Telegram answers a token that is not this bot's, before anything else."""
        if not _TOKEN.fullmatch(token):
            return ApiError.not_found()
        if not self.any_token and token != self.token:
            # Telegram's answer to a token of the right shape that names no bot (revoked,
            # mistyped, another bot's).
            return ApiError.unauthorized()
        return None

    def _execute(self, method: MethodSpec, params: dict[str, Any]) -> Answer:
        if self._flaky and self._rng.random() < self._flaky:
            error = ApiError.too_many_requests(self._flaky_retry_after)
            return self._answer(method.name, params, error, injected=True)
        try:
            if self._limiter is not None and method.name in LIMITED_METHODS:
                self._admit(params.get("chat_id"), edit=method.name.startswith("edit"))
            result = self.api.call(method.name, params)
        except ApiError as error:
            return self._answer(method.name, params, error)
        return self._succeed(method, params, result)

    def _admit(self, chat_id: int | str | None, *, edit: bool) -> None:
        assert self._limiter is not None
        chat = None if chat_id is None else self.world.find_chat(chat_id)
        if chat is None:
            return  # an inline message; or the method itself will answer "chat not found"
        group = isinstance(chat, Group)
        wait = self._limiter.admit(chat.id, group=group, now=self.clock(), edit=edit)
        if wait is not None:
            raise ApiError.too_many_requests(wait)

    async def _get_updates(self, method: MethodSpec, params: dict[str, Any]) -> Answer:
        try:
            updates = await self.world.updates.get_updates(
                offset=params.get("offset", 0),
                limit=params.get("limit", 100),
                poll_seconds=params.get("timeout", 0),
                allowed_updates=params.get("allowed_updates"),
            )
        except ApiError as error:
            return self._answer(method.name, params, error)
        if updates:
            self._touch()
        return self._succeed(method, params, updates)

    def _succeed(self, method: MethodSpec, params: dict[str, Any], result: Any) -> Answer:
        try:
            self.schema.check_result(method, result)
        except ValueError as fault:
            log.error("sandbox produced an invalid answer: %s", fault)
            error = ApiError(500, f"Internal Server Error: sandbox answer is invalid: {fault}")
            return self._answer(method.name, params, error)
        self._record(method.name, params, 200, result=result)
        return 200, {"ok": True, "result": result}

    def _answer(
        self, method: str, params: dict[str, Any], error: ApiError, *, injected: bool = False
    ) -> Answer:
        self._record(method, params, error.status, error.description, injected=injected)
        return error.status, error.payload()

    def _record(
        self,
        method: str,
        params: dict[str, Any],
        status: int,
        description: str | None = None,
        *,
        result: Any = None,
        injected: bool = False,
    ) -> None:
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str):  # a refused request's raw text, or an @username
            if chat_id.lstrip("-").isdigit():
                chat_id = int(chat_id)
            else:
                chat = self.world.find_chat(chat_id)
                chat_id = chat.id if chat is not None else None
        elif not isinstance(chat_id, int):
            chat_id = None
        self._call_count += 1
        record = CallRecord(
            seq=self._call_count,
            time=self.clock(),
            method=method,
            params=params,
            chat_id=chat_id,
            status=status,
            description=description,
            result=result,
            injected=injected,
        )
        if self.keep_calls:
            self._calls.append(record)
        for observe in self.observers:
            observe(record)


async def _read_params(
    request: web.Request, method: MethodSpec
) -> tuple[dict[str, Any], dict[str, UploadedFile]]:
    """Parameters from the query string and a JSON, form or multipart body.

    A file part named like a parameter is that parameter's value; any other file part
    is an attachment that a parameter refers to as `attach://<name>`.
    """
    raw: dict[str, Any] = dict(request.query)
    files: dict[str, UploadedFile] = {}
    if request.content_type == "application/json":
        body = await request.read()
        if body:
            try:
                decoded = json.loads(body)
            except ValueError:
                raise ApiError.bad_request("can't parse JSON request body") from None
            if not isinstance(decoded, dict):
                raise ApiError.bad_request("the JSON request body must be an object")
            raw.update(decoded)
    elif request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        form = await request.post()
        for name, value in form.items():
            if isinstance(value, web.FileField):
                part = UploadedFile(value.filename, value.content_type, value.file.read())
                if name in method.params:
                    raw[name] = part
                else:
                    files[name] = part
            else:
                raw[name] = value
    return raw, files


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _transcript_line(message: SimMessage) -> str:
    when = time.strftime(_SHORT_TIME, time.gmtime(message.date))
    chat = message.chat
    where = f"{chat.title} (private)" if isinstance(chat, PrivateChat) else chat.title
    who = f"{message.sender.full_name}{' [bot]' if message.from_bot else ''}"
    if message.service:
        kind, value = next(iter(message.service.items()))
        if isinstance(value, SimMessage):
            what = f"pinned message {value.message_id}"
        elif isinstance(value, list):
            what = f"{kind}: {', '.join(account.full_name for account in value)}"
        else:
            what = f"{kind}: {value.full_name}"
        return f"[{when}] {where} | * {who} {what}"
    body = message.content
    if message.media_kind is not None:
        body = f"<{message.media_kind}> {body}".rstrip()
    if message.forward_origin is not None:
        body = f"(forwarded) {body}"
    buttons = " ".join(f"[{b.text}]" for row in message.buttons() for b in row)
    marks = [
        mark
        for mark, present in (
            ("(edited)", message.edit_date is not None),
            ("(protected)", message.protect_content),
            ("(deleted)", message.deleted),
        )
        if present
    ]
    tail = " ".join(part for part in (buttons, *marks) if part)
    return f"[{when}] {where} | {who}: {body}{' ' + tail if tail else ''}"

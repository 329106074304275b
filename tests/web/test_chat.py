"""The chat mode in real Chromium against the real app and store: streaming turns, the dossier panel, the
discovery card, the handoff banner, an audit marker, the welcome card, desktop and phone widths.

The engine is the API fixture corpus (real SQLite, hash embedder); where a model is needed it is a scripted
LLM, because these tests check what the page does with the events, not what a model writes."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from groundsearch.engine import Engine
from groundsearch.models.base import ChatMessage, Completion
from groundsearch.models.fake import ScriptedLLM
from tests.api.live import make_engine, make_settings, serve

from .conftest import Page, app_for

WIDE = "We have 2 million documents. Atlas hybrid search and vector search with reranking: which release?"
INVENTED = ("Atlas 2.0 added hybrid vector search [1].\n\n"
            "Globex Corporation cut its search latency by 73% with it [1].")
REROLL = "This sentence of your reply could not be verified"


def _reply(messages: Sequence[ChatMessage]) -> Completion:
    if messages[-1].content.startswith(REROLL):
        return Completion(text="Globex Corporation saw 73% faster search.", model="scripted", finish_reason="stop")
    return Completion(text=INVENTED, model="scripted", finish_reason="stop")


class HeldWriter(ScriptedLLM):
    """Streams the scripted reply word by word but holds the last word of ``INVENTED`` until the test opens the
    gate, so paragraph 1 is provably still being written when the test looks, however slow the machine."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__(_reply)
        self.gate = gate

    def stream(self, messages: Sequence[ChatMessage], **kw: Any) -> Iterator[str | Completion]:
        *words, completion = super().stream(messages, **kw)
        for i, word in enumerate(words):
            if i == len(words) - 1 and isinstance(completion, Completion) and completion.text == INVENTED:
                self.gate.wait(120)  # a ceiling, so a failed test cannot hang the server thread
            yield word
        yield completion


@pytest.fixture
def gate() -> threading.Event:
    """Opened by the test once it has seen what must be on screen before the model's reply (a gate, not a sleep)."""
    return threading.Event()


@pytest.fixture
def chat_url(tmp_path: Path, request: pytest.FixtureRequest, gate: threading.Event) -> Iterator[str]:
    settings = make_settings(tmp_path, retrieval={"gate_threshold": 0.0})
    with make_engine(tmp_path, settings) as engine:
        if getattr(request, "param", None) == "model":
            def thinking(messages: Sequence[ChatMessage]) -> Completion:  # the model "thinks" until the gate opens
                if not messages[-1].content.startswith(REROLL):
                    gate.wait(120)
                return _reply(messages)

            engine.llm = ScriptedLLM(thinking)
        elif getattr(request, "param", None) == "held-writer":
            engine.llm = HeldWriter(gate)
        with serve(app_for(engine)) as url:
            try:
                yield f"{url}/?mode=chat"
            finally:
                gate.set()  # a failed test must not leave the server thread waiting


def send(page: Any, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


@pytest.mark.parametrize("chat_url", ["model"], indirect=True)
def test_streaming_turn_paints_the_dossier_first_then_marks_the_invented_claim(desktop: Page, chat_url: str,
                                                                             gate: threading.Event) -> None:
    page = desktop.page
    page.clock.install()  # runs on ordinary time until paused for the citation's flash below
    page.goto(chat_url)
    send(page, "What did Atlas 2.0 add?")
    turn = page.locator(".turn.assistant").last
    expect(page.locator("#dossier-sources li").first).to_be_visible(timeout=60_000)
    # the model is still writing: the dossier is there, the reply is not
    assert turn.get_attribute("aria-busy") == "true"
    assert turn.locator(".reply-text").inner_text() == ""
    expect(turn.locator(".status")).to_have_text("Composing the answer…")
    gate.set()
    expect(turn).to_have_attribute("aria-busy", "false", timeout=60_000)
    paragraphs = turn.locator(".reply-text p")
    expect(paragraphs).to_have_count(2)
    expect(paragraphs.nth(0)).to_contain_text("Atlas 2.0 added hybrid vector search")  # the grounded one stays
    expect(paragraphs.nth(1).locator(".marker")).to_have_text(
        "could not verify this claim against the provided sources")
    assert "Globex" not in page.locator("#turns").inner_text()
    expect(turn.locator(".audit-note")).to_have_text("auditor: 1 claim(s) marked, 2 reroll(s)")
    cite = paragraphs.nth(0).locator("button.cite").first
    expect(cite).to_have_text("[1]")
    # the flash lasts 1.5 s of page time: on a paused clock a slow machine cannot let it end before it is seen
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    cite.click()
    source = page.locator("#src-1")
    expect(source).to_have_class(re.compile(r"\bflash\b"))  # the cited source, highlighted
    desktop.shot("chat-audit-marker.png")
    page.clock.run_for(1_500)
    expect(source).not_to_have_class(re.compile(r"\bflash\b"))  # a moment, not for good


@pytest.mark.parametrize("chat_url", ["held-writer"], indirect=True)
def test_streamed_words_show_provisionally_then_each_paragraph_settles_and_the_invented_one_is_marked(
        desktop: Page, chat_url: str, gate: threading.Event) -> None:
    """The server streams the model's words: paragraph 0 is on screen while the model still writes, and is
    settled (checked, no longer provisional) before paragraph 1 is finished; the invented paragraph 1 shows as
    written, provisional, until its audit replaces it with the marker."""
    page = desktop.page
    page.goto(chat_url)
    send(page, "What did Atlas 2.0 add?")
    turn = page.locator(".turn.assistant").last
    paragraphs = turn.locator(".reply-text p")
    expect(paragraphs.nth(1)).to_contain_text("Globex", timeout=60_000)  # streamed, as the model wrote it
    assert turn.get_attribute("aria-busy") == "true"
    expect(paragraphs.nth(1)).to_have_class(re.compile(r"\bprovisional\b"))
    expect(paragraphs.nth(0)).not_to_have_class(re.compile(r"\bprovisional\b"))  # settled by its audit event
    expect(paragraphs.nth(0)).to_have_text("Atlas 2.0 added hybrid vector search [1].")
    desktop.shot("chat-streaming.png")
    gate.set()  # the last word of paragraph 1
    expect(turn).to_have_attribute("aria-busy", "false", timeout=60_000)
    expect(paragraphs).to_have_count(2)
    expect(paragraphs.nth(1).locator(".marker")).to_have_text(
        "could not verify this claim against the provided sources")
    assert "Globex" not in page.locator("#turns").inner_text()
    assert turn.locator(".reply-text p.provisional").count() == 0  # nothing unaudited is left as final
    expect(turn.locator(".audit-note")).to_have_text("auditor: 1 claim(s) marked, 2 reroll(s)")


def test_discovery_card_then_handoff_banner_in_one_conversation(desktop: Page, chat_url: str) -> None:
    page = desktop.page
    page.goto(chat_url)
    expect(page.locator("#welcome")).to_be_visible()
    send(page, "tell me about atlas")
    first = page.locator(".turn.assistant").nth(0)
    expect(first).to_have_attribute("aria-busy", "false", timeout=60_000)
    card = first.locator(".discovery")
    expect(card).to_be_visible()
    assert card.get_attribute("data-signal") and card.locator("p").inner_text().strip().endswith("?")
    expect(page.locator("#welcome")).to_be_hidden()
    desktop.shot("chat-discovery.png")
    first_sources = page.locator("#dossier-sources li").all_inner_texts()
    send(page, WIDE)
    second = page.locator(".turn.assistant").nth(1)
    expect(second).to_have_attribute("aria-busy", "false", timeout=60_000)
    banner = second.locator(".handoff")
    expect(banner).to_be_visible()
    expect(banner.locator("strong")).to_have_text("Handing over to retrieval-expert")
    expect(banner).to_contain_text("scale: 2 million documents")
    expect(page.locator("#dossier-signals .chip").first).to_contain_text("scale")
    assert first.locator(".handoff").count() == 0 and second.locator(".discovery").count() == 0
    desktop.shot("chat-handoff.png")
    second_sources = page.locator("#dossier-sources li").all_inner_texts()
    assert second_sources != first_sources  # the two turns retrieved differently, so the panel can tell them apart
    first.locator("button.cite").first.click()  # an older turn's [n] refers to that turn's dossier
    expect(page.locator("#dossier-sources li")).to_have_count(len(first_sources))
    assert page.locator("#dossier-sources li").all_inner_texts() == first_sources
    second.locator("button.cite").first.click()
    assert page.locator("#dossier-sources li").all_inner_texts() == second_sources


def test_phone_width_chat_with_the_welcome_examples(phone: Page, chat_url: str) -> None:
    page = phone.page
    page.goto(chat_url)
    expect(page.locator("#welcome")).to_be_visible()
    phone.shot("phone-chat-welcome.png")
    page.locator("#chat-examples .chip").first.click()
    turn = page.locator(".turn.assistant").first
    expect(turn).to_have_attribute("aria-busy", "false", timeout=60_000)
    expect(turn.locator(".reply-text p").first).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"the chat scrolls sideways by {overflow}px on a phone"
    for selector in ("#chat-input", "#chat-send", ".turn.assistant .bubble"):
        box = page.locator(selector).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, (selector, box)
    phone.shot("phone-chat.png")


def test_search_mode_is_untouched_by_the_chat_module(desktop: Page, chat_url: str) -> None:
    page = desktop.page
    page.goto(chat_url.replace("/?mode=chat", "/"))
    expect(page.locator("#search-form")).to_be_visible()
    assert page.locator("#chat").is_hidden()
    expect(page.locator("#mode-search")).to_have_attribute("aria-current", "page")


def test_a_paragraph_audit_event_replaces_only_that_paragraph(desktop: Page, chat_url: str) -> None:
    """The page's side of the streaming contract (docs/assistant.md, "Auditor"): tokens paint paragraphs, then
    an ``audit`` event for paragraph 1 swaps that paragraph alone; paragraph 0 stays the same node. The events
    are fed to the page's own handler, so the order is exactly this one (the server-driven case is the test
    above with the held writer)."""
    page = desktop.page
    page.goto(chat_url)
    page.evaluate("""() => {
        window.__turn = startTurn("q");
        onChatEvent(window.__turn, "token", {text: "Atlas 2.0 added hybrid vector search [1].\\n\\n"});
        onChatEvent(window.__turn, "token", {text: "Globex grew 37% with it."});
        window.__turn.text.querySelector('p[data-paragraph="0"]').dataset.kept = "yes";
    }""")
    paragraphs = page.locator(".turn.assistant .reply-text p")
    expect(paragraphs).to_have_count(2)
    expect(paragraphs.nth(1)).to_have_text("Globex grew 37% with it.")
    page.evaluate("""() => onChatEvent(window.__turn, "audit", {paragraph: 1, replaced: true, marked: 1, rerolls: 2,
        text: "[could not verify this claim against the provided sources]"})""")
    expect(paragraphs.nth(1).locator(".marker")).to_be_visible()
    assert "Globex" not in page.locator(".turn.assistant").inner_text()
    assert paragraphs.nth(0).get_attribute("data-kept") == "yes", "the earlier paragraph was repainted"
    page.evaluate("""() => onChatEvent(window.__turn, "audit", {paragraph: 0, replaced: false,
        text: "Atlas 2.0 added hybrid vector search [1]."})""")
    assert paragraphs.nth(0).get_attribute("data-kept") == "yes"

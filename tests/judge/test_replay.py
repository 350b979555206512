"""ReplayJudge: recorded calls answer the same questions again, with the server gone."""

from __future__ import annotations

import pytest

from stategraph.errors import JudgeConfigError
from stategraph.judge import Judge, JudgeAnswer, JudgeCall, OpenAIJudge, ReplayJudge, question_key
from stategraph.judge.replay import NOT_IN_LOG

from .chat_server import ChatServer, Received, Reply, answer_json, completion
from .test_openai_judge import MODEL, question


def _recorded(chat_server: ChatServer) -> list[JudgeCall]:
    def model(request: Received) -> Reply:
        if request.heads == ["b3"]:
            return Reply(body=completion("no idea"))  # an error is recorded too
        return Reply(body=completion(answer_json(True, ["f3"], heads=request.heads)))

    chat_server.script(model)
    # one question a request, so that b3's is a request of its own
    with OpenAIJudge(MODEL, base_url=chat_server.base_url, timeout=5.0, max_questions=1) as judge:
        return judge.ask([question("b1"), question("b2", "other"), question("b3", "third")])


def test_a_replay_answers_from_the_log_with_the_server_stopped(chat_server):
    recorded = _recorded(chat_server)
    chat_server.stop()

    replay = ReplayJudge(recorded)
    assert isinstance(replay, Judge)
    assert (replay.name, replay.model, len(replay)) == ("stategraph.replay_judge.v1", MODEL, 3)
    calls = replay.ask([question("b3", "third"), question("b1")])

    assert [c.question.head.id for c in calls] == ["b3", "b1"]
    assert calls[1].answer == JudgeAnswer(still_holds=True, support=("f3",), reason="ok")
    assert calls[0].answer is None and calls[0].error == recorded[2].error
    for call in calls:
        assert (call.cached, call.attempts) == (True, 0)
    assert calls[1].model_dump(exclude={"cached", "attempts"}) == recorded[0].model_dump(
        exclude={"cached", "attempts"}
    )


def test_an_unknown_question_is_not_answered(chat_server):
    replay = ReplayJudge(_recorded(chat_server))
    q = question("b9", "never asked")
    [call] = replay.ask([q])
    assert call.answer is None and call.error == NOT_IN_LOG == "not in the replay log"
    assert call.key == question_key(q, MODEL)
    assert (call.judge, call.model, call.cached, call.attempts) == (replay.name, MODEL, False, 0)


def test_another_model_is_another_key(chat_server):
    recorded = _recorded(chat_server)
    [call] = ReplayJudge(recorded, model="other-model").ask([question("b1")])
    assert call.error == NOT_IN_LOG


def test_an_answer_beats_an_earlier_error_for_the_same_key(chat_server):
    recorded = _recorded(chat_server)
    failed = recorded[0].model_copy(update={"answer": None, "error": "timeout: ..."})
    [call] = ReplayJudge([failed, recorded[0]]).ask([question("b1")])
    assert call.answer is not None


def test_the_first_of_two_answers_wins(chat_server):
    recorded = _recorded(chat_server)
    later = recorded[0].model_copy(update={"answer": JudgeAnswer(still_holds=False)})
    [call] = ReplayJudge([recorded[0], later]).ask([question("b1")])
    assert call.answer == recorded[0].answer


def test_an_edited_log_is_refused(chat_server):
    recorded = _recorded(chat_server)
    edited = recorded[0].model_copy(update={"question": question("b1", "edited text")})
    with pytest.raises(JudgeConfigError) as caught:
        ReplayJudge([edited])
    assert caught.value.fields == ["calls"]


def test_several_models_need_a_choice(chat_server):
    recorded = _recorded(chat_server)
    q = question("b1")
    other = recorded[0].model_copy(update={"model": "m2", "key": question_key(q, "m2")})
    with pytest.raises(JudgeConfigError) as caught:
        ReplayJudge([recorded[0], other])
    assert caught.value.fields == ["model"]
    [call] = ReplayJudge([recorded[0], other], model="m2").ask([q])
    assert call.model == "m2" and call.answer is not None


def test_an_empty_log_answers_nothing():
    replay = ReplayJudge([])
    assert len(replay) == 0
    [call] = replay.ask([question()])
    assert call.error == NOT_IN_LOG

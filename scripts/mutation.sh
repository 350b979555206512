#!/usr/bin/env bash
# Opt-in mutation run (issue 14, item 9): mutmut over the revision engine and the store's log.
#
#   pip install mutmut            # not a project dependency: this run is opt-in
#   scripts/mutation.sh           # every mutant of the modules below (hours on two cores)
#   scripts/mutation.sh 'stategraph.store.revlog.*'   # only the mutants matching these globs
#
# It mutates a copy of the committed tree (git archive HEAD) in MUTATION_DIR (default: a new
# temporary folder; give the same one again to go on where a run stopped), never the work
# tree. The modules: revise.py, logic.py, explain.py, revlog.py and the log part of store.py
# (its mutants outside the log's methods are not run). The tests: the unit tests of the
# engine and the store, the property suite's report and bounds properties, the regressions,
# the revision-log tests, at the CI Hypothesis profile. At the end, scripts/mutation_score.py
# prints killed/total per module and the survivors. See docs/testing.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${MUTATION_DIR:-$(mktemp -d -t stategraph-mutation-XXXXXX)}
python=${PYTHON:-python}
if [ ! -f "$work/setup.cfg" ]; then
    mkdir -p "$work"  # a MUTATION_DIR that does not exist yet
    git -C "$here" archive HEAD | tar -x -C "$work"
    cat > "$work/setup.cfg" <<'CFG'
[mutmut]
source_paths = stategraph
only_mutate =
    stategraph/engine/revise.py
    stategraph/engine/logic.py
    stategraph/engine/explain.py
    stategraph/store/revlog.py
    stategraph/store/sqlite.py
also_copy =
    rules
    grounding
    examples
pytest_add_cli_args =
    -p
    no:cacheprovider
pytest_add_cli_args_test_selection =
    tests/core/test_revision.py
    tests/core/test_revision_causes.py
    tests/core/test_errors.py
    tests/core/test_ids.py
    tests/core/test_linking.py
    tests/core/test_judging.py
    tests/core/test_candidates.py
    tests/core/test_bounded.py
    tests/core/test_logic.py
    tests/core/test_bulk.py
    tests/core/test_explain.py
    tests/core/test_explain_fields.py
    tests/cli/test_render.py
    tests/review/test_review.py
    tests/core/test_memory.py
    tests/core/test_store.py
    tests/core/test_pruning.py
    tests/properties/test_report_fields.py
    tests/properties/test_bounds.py
    tests/properties/test_regressions.py
    tests/store
CFG
fi
cd "$work"
echo "mutation run in $work"
# The log part of store.py: its log's methods and helpers; other store mutants are skipped.
log='stategraph.store.sqlite.*append* stategraph.store.sqlite.*history* stategraph.store.sqlite.*_entries*
     stategraph.store.sqlite.*_entry* stategraph.store.sqlite.*head* stategraph.store.sqlite.*verify*
     stategraph.store.sqlite.*tamper* stategraph.store.sqlite.*_refuse* stategraph.store.sqlite.*_acknowledged*
     stategraph.store.sqlite.*_last* stategraph.store.sqlite.*_since* stategraph.store.sqlite.*commit*'
if [ $# -eq 0 ]; then
    # shellcheck disable=SC2086
    set -- 'stategraph.engine.revise.*' 'stategraph.engine.logic.*' 'stategraph.engine.explain.*' \
        'stategraph.store.revlog.*' $log
fi
"$python" -m mutmut run "$@" || true
"$python" "$here/scripts/mutation_score.py" "$work"

-- A store written by stategraph 6945247 (schema 3, every log column TEXT) through
-- tests/store/logged.py with HUB_BELIEFS = 40; sqlite3 .dump of the file. Regenerate only
-- with that version: it stands for the stores users already have.
BEGIN TRANSACTION;
CREATE TABLE docs (
    seq INTEGER PRIMARY KEY,        -- indexing order: postings are read newest first
    state_id TEXT NOT NULL,
    size INTEGER NOT NULL           -- how many lexical (g:) terms the memory has
);
INSERT INTO "docs" VALUES(1,'hub',2);
INSERT INTO "docs" VALUES(2,'f1',13);
INSERT INTO "docs" VALUES(3,'f2',9);
INSERT INTO "docs" VALUES(4,'p1',22);
INSERT INTO "docs" VALUES(5,'m9',4);
CREATE TABLE edges (
    src TEXT NOT NULL,
    head TEXT NOT NULL,
    follow INTEGER NOT NULL,        -- 1: a change of src can change head (head does not hold,
                                    -- or src is cited by the support of head): graph.Cone
    PRIMARY KEY (src, head)
) WITHOUT ROWID;
INSERT INTO "edges" VALUES('f1','p1',1);
INSERT INTO "edges" VALUES('f2','p1',1);
INSERT INTO "edges" VALUES('hub','b0',1);
INSERT INTO "edges" VALUES('hub','b1',1);
INSERT INTO "edges" VALUES('hub','b10',1);
INSERT INTO "edges" VALUES('hub','b11',1);
INSERT INTO "edges" VALUES('hub','b12',1);
INSERT INTO "edges" VALUES('hub','b13',1);
INSERT INTO "edges" VALUES('hub','b14',1);
INSERT INTO "edges" VALUES('hub','b15',1);
INSERT INTO "edges" VALUES('hub','b16',1);
INSERT INTO "edges" VALUES('hub','b17',1);
INSERT INTO "edges" VALUES('hub','b18',1);
INSERT INTO "edges" VALUES('hub','b19',1);
INSERT INTO "edges" VALUES('hub','b2',1);
INSERT INTO "edges" VALUES('hub','b20',1);
INSERT INTO "edges" VALUES('hub','b21',1);
INSERT INTO "edges" VALUES('hub','b22',1);
INSERT INTO "edges" VALUES('hub','b23',1);
INSERT INTO "edges" VALUES('hub','b24',1);
INSERT INTO "edges" VALUES('hub','b25',1);
INSERT INTO "edges" VALUES('hub','b26',1);
INSERT INTO "edges" VALUES('hub','b27',1);
INSERT INTO "edges" VALUES('hub','b28',1);
INSERT INTO "edges" VALUES('hub','b29',1);
INSERT INTO "edges" VALUES('hub','b3',1);
INSERT INTO "edges" VALUES('hub','b30',1);
INSERT INTO "edges" VALUES('hub','b31',1);
INSERT INTO "edges" VALUES('hub','b32',1);
INSERT INTO "edges" VALUES('hub','b33',1);
INSERT INTO "edges" VALUES('hub','b34',1);
INSERT INTO "edges" VALUES('hub','b35',1);
INSERT INTO "edges" VALUES('hub','b36',1);
INSERT INTO "edges" VALUES('hub','b37',1);
INSERT INTO "edges" VALUES('hub','b38',1);
INSERT INTO "edges" VALUES('hub','b39',1);
INSERT INTO "edges" VALUES('hub','b4',1);
INSERT INTO "edges" VALUES('hub','b5',1);
INSERT INTO "edges" VALUES('hub','b6',1);
INSERT INTO "edges" VALUES('hub','b7',1);
INSERT INTO "edges" VALUES('hub','b8',1);
INSERT INTO "edges" VALUES('hub','b9',1);
INSERT INTO "edges" VALUES('hub','p1',1);
CREATE TABLE judge_cache (
    key TEXT PRIMARY KEY,
    call TEXT NOT NULL              -- the JudgeCall that answered, as JSON
) WITHOUT ROWID;
INSERT INTO "judge_cache" VALUES('b0f1047ad7788621d895ad737a391a678088dcac1b9516658c5c7b8a853f0354','{"key":"b0f1047ad7788621d895ad737a391a678088dcac1b9516658c5c7b8a853f0354","question":{"head":{"id":"p1","kind":"plan","text":"Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, "},"premise":{"id":"f1","kind":"fact","text":"The user flies to Tokyo on May 10"},"premise_change":"retracted","replacement":null,"holding":[{"id":"f2","kind":"fact","text":"The user likes sushi"},{"id":"hub","kind":"fact","text":"the hub"}]},"judge":"test.depends.v1","model":"script","prompt_version":"counterfactual.v1","answer":{"still_holds":false,"support":[],"reason":"it rested on that"},"error":null,"attempts":1,"prompt_tokens":0,"completion_tokens":0,"latency_ms":0.0,"cached":false}');
CREATE TABLE justifications (
    head TEXT NOT NULL,
    premises TEXT NOT NULL,         -- JSON array, sorted
    unless TEXT NOT NULL,           -- JSON array, sorted
    origin TEXT NOT NULL,
    extra TEXT NOT NULL,            -- JSON of checked / notes / rules, '' when all empty
    PRIMARY KEY (head, premises, unless)
) WITHOUT ROWID;
INSERT INTO "justifications" VALUES('b0','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b1','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b10','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b11','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b12','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b13','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b14','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b15','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b16','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b17','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b18','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b19','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b2','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b20','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b21','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b22','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b23','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b24','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b25','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b26','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b27','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b28','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b29','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b3','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b30','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b31','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b32','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b33','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b34','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b35','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b36','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b37','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b38','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b39','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b4','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b5','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b6','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b7','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b8','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('b9','["hub"]','[]','declared','');
INSERT INTO "justifications" VALUES('p1','["f1","f2","hub"]','[]','recovered','{"checked":{"f1":"dependency"},"notes":{"f1":"test.depends.v1 (script): depends on f1: it rested on that"},"proposed":{"f1":"context","f2":"context","hub":"recent"},"rules":[]}');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('schema','3');
CREATE TABLE revisions (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    change TEXT NOT NULL,
    report TEXT NOT NULL,
    config TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    calls TEXT NOT NULL DEFAULT ''  -- the judge calls made or served (JSON), '' for none
);
INSERT INTO "revisions" VALUES(1,'2026-12-01T12:05:49.593045+00:00','{"bulk_load":true}','{"bulk_load":{"holding":41,"justifications":40,"sha256":"72a7cef8aab5aba3e93d2110969282ad60bb7cd2f87f66e1d3e8a084542a6ed2","states":41,"undefined":0}}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','0000000000000000000000000000000000000000000000000000000000000000','7351cfb0d87b49738378d1cf28d8a46d3b85900d486b488a1b0463260f249076','');
INSERT INTO "revisions" VALUES(2,'2026-12-01T12:05:49.594015+00:00','{"retract":[],"assert":[{"id":"f1","kind":"fact","text":"The user flies to Tokyo on May 10","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]}','{"change":{"retract":[],"assert":[{"id":"f1","kind":"fact","text":"The user flies to Tokyo on May 10","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]},"changed":[{"id":"f1","action":"asserted","by":null,"new":"true"}],"entries":[],"cone_size":1,"solved":1,"max_depth":null,"method":"cone/stratified","edges":[]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','7351cfb0d87b49738378d1cf28d8a46d3b85900d486b488a1b0463260f249076','04a6a41821df88646bce101d8f4d96199a2863a9f66c37accd1af325091810d8','');
INSERT INTO "revisions" VALUES(3,'2026-12-01T12:05:49.594731+00:00','{"retract":[],"assert":[{"id":"f2","kind":"fact","text":"The user likes sushi","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]}','{"change":{"retract":[],"assert":[{"id":"f2","kind":"fact","text":"The user likes sushi","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]},"changed":[{"id":"f2","action":"asserted","by":null,"new":"true"}],"entries":[],"cone_size":1,"solved":1,"max_depth":null,"method":"cone/stratified","edges":[]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','04a6a41821df88646bce101d8f4d96199a2863a9f66c37accd1af325091810d8','7fa24af22deed353f28bd087b70c461c847dfa68db033f559c27746a7f07d1b0','');
INSERT INTO "revisions" VALUES(4,'2026-12-01T12:05:49.595812+00:00','{"retract":[],"assert":[{"id":"p1","kind":"plan","text":"Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, ","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[{"head":"p1","premises":["f1","f2","hub"],"unless":[],"origin":"recovered","checked":{},"notes":{},"rules":[],"proposed":{"f1":"context","f2":"context","hub":"recent"}}],"remove_justifications":[]}','{"change":{"retract":[],"assert":[{"id":"p1","kind":"plan","text":"Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, ","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[{"head":"p1","premises":["f1","f2","hub"],"unless":[],"origin":"recovered","checked":{},"notes":{},"rules":[],"proposed":{"f1":"context","f2":"context","hub":"recent"}}],"remove_justifications":[]},"changed":[{"id":"p1","action":"asserted","by":null,"new":"true"}],"entries":[],"cone_size":1,"solved":1,"max_depth":null,"method":"cone/stratified","edges":[]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','7fa24af22deed353f28bd087b70c461c847dfa68db033f559c27746a7f07d1b0','47669acfaae58563c8dc3a7491585559f61092da7fd8e19b60a8a14e1502c77b','');
INSERT INTO "revisions" VALUES(5,'2026-12-01T12:05:49.597867+00:00','{"retract":["f1"],"assert":[],"supersede":[],"add_justifications":[{"head":"p1","premises":["f1","f2","hub"],"unless":[],"origin":"recovered","checked":{"f1":"dependency"},"notes":{"f1":"test.depends.v1 (script): depends on f1: it rested on that"},"rules":[],"proposed":{"f1":"context","f2":"context","hub":"recent"}}],"remove_justifications":[]}','{"change":{"retract":["f1"],"assert":[],"supersede":[],"add_justifications":[{"head":"p1","premises":["f1","f2","hub"],"unless":[],"origin":"recovered","checked":{"f1":"dependency"},"notes":{"f1":"test.depends.v1 (script): depends on f1: it rested on that"},"rules":[],"proposed":{"f1":"context","f2":"context","hub":"recent"}}],"remove_justifications":[]},"changed":[{"id":"f1","action":"retracted","by":null,"new":"false"}],"entries":[{"id":"p1","kind":"plan","old":"true","new":"false","verdict":"invalidated","depth":0,"decided_by":"judge","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["f1","f2","hub"],"unless":[],"origin":"recovered","rules":[],"notes":{},"proposed":{"f1":"context","f2":"context","hub":"recent"}},"failed":["f1"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}}],"cone_size":2,"solved":2,"max_depth":null,"method":"cone/stratified","edges":[{"head":"p1","premise":"f1","decided_by":"judge","check":"dependency","support":[],"asked":true,"blocker":false,"note":"test.depends.v1 (script): depends on f1: it rested on that"}]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','47669acfaae58563c8dc3a7491585559f61092da7fd8e19b60a8a14e1502c77b','48d7abe275276d0d52e5dd2303adc5c3b88d504538b54e8fe076c173a5f57686','[{"key":"b0f1047ad7788621d895ad737a391a678088dcac1b9516658c5c7b8a853f0354","question":{"head":{"id":"p1","kind":"plan","text":"Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, "},"premise":{"id":"f1","kind":"fact","text":"The user flies to Tokyo on May 10"},"premise_change":"retracted","replacement":null,"holding":[{"id":"f2","kind":"fact","text":"The user likes sushi"},{"id":"hub","kind":"fact","text":"the hub"}]},"judge":"test.depends.v1","model":"script","prompt_version":"counterfactual.v1","answer":{"still_holds":false,"support":[],"reason":"it rested on that"},"error":null,"attempts":1,"prompt_tokens":0,"completion_tokens":0,"latency_ms":0.0,"cached":false}]');
INSERT INTO "revisions" VALUES(6,'2026-12-01T12:05:49.603732+00:00','{"retract":["hub"],"assert":[],"supersede":[],"add_justifications":[],"remove_justifications":[]}','{"change":{"retract":["hub"],"assert":[],"supersede":[],"add_justifications":[],"remove_justifications":[]},"changed":[{"id":"hub","action":"retracted","by":null,"new":"false"}],"entries":[{"id":"b0","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b1","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b10","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b11","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b12","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b13","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b14","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b15","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b16","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b17","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b18","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b19","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b2","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b20","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b21","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b22","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b23","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b24","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b25","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b26","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b27","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b28","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b29","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b3","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b30","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b31","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b32","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b33","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b34","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b35","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b36","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b37","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b38","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b39","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b4","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b5","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b6","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b7","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b8","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}},{"id":"b9","kind":"belief","old":"true","new":"false","verdict":"invalidated","depth":1,"decided_by":"logic","consequence":null,"reason":{"cause":"no_support","lost":[{"justification":{"premises":["hub"],"unless":[],"origin":"declared","rules":[],"notes":{},"proposed":{}},"failed":["hub"],"blocked_by":[],"removed":false}],"surviving":null,"cycle":[],"undecided":[]}}],"cone_size":42,"solved":42,"max_depth":null,"method":"cone/stratified","edges":[]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','48d7abe275276d0d52e5dd2303adc5c3b88d504538b54e8fe076c173a5f57686','be0e482062e68b83a1ae04eaccc612b26d363d5fb3f0d30515a78373c552c632','');
INSERT INTO "revisions" VALUES(7,'2026-12-01T12:05:49.604438+00:00','{"retract":[],"assert":[{"id":"m9","kind":"fact","text":"the last one","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]}','{"change":{"retract":[],"assert":[{"id":"m9","kind":"fact","text":"the last one","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}],"supersede":[],"add_justifications":[],"remove_justifications":[]},"changed":[{"id":"m9","action":"asserted","by":null,"new":"true"}],"entries":[],"cone_size":1,"solved":1,"max_depth":null,"method":"cone/stratified","edges":[]}','{"candidates":{"k":8,"lexical_floor":0.1,"name":"stategraph.candidates.v1"},"judge":{"budget":{"calls":32,"rounds":6,"tokens":100000},"model":"script","name":"test.depends.v1"},"kinds":["action","belief","fact","plan"],"max_depth":null}','be0e482062e68b83a1ae04eaccc612b26d363d5fb3f0d30515a78373c552c632','57c8e64acc1339dc4cdd74edf58c1dd16507df599cb4bb1c49b1b5488d06a664','');
CREATE TABLE states (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT,                    -- actions: pending / executed
    active INTEGER NOT NULL,
    superseded_by TEXT,
    truth TEXT NOT NULL,            -- value in the current well-founded model
    has_atoms INTEGER NOT NULL,
    body TEXT NOT NULL              -- the whole State as JSON
);
INSERT INTO "states" VALUES('hub','fact',NULL,0,NULL,'false',0,'{"id":"hub","kind":"fact","text":"the hub","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b0','belief',NULL,1,NULL,'false',0,'{"id":"b0","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b1','belief',NULL,1,NULL,'false',0,'{"id":"b1","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b2','belief',NULL,1,NULL,'false',0,'{"id":"b2","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b3','belief',NULL,1,NULL,'false',0,'{"id":"b3","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b4','belief',NULL,1,NULL,'false',0,'{"id":"b4","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b5','belief',NULL,1,NULL,'false',0,'{"id":"b5","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b6','belief',NULL,1,NULL,'false',0,'{"id":"b6","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b7','belief',NULL,1,NULL,'false',0,'{"id":"b7","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b8','belief',NULL,1,NULL,'false',0,'{"id":"b8","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b9','belief',NULL,1,NULL,'false',0,'{"id":"b9","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b10','belief',NULL,1,NULL,'false',0,'{"id":"b10","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b11','belief',NULL,1,NULL,'false',0,'{"id":"b11","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b12','belief',NULL,1,NULL,'false',0,'{"id":"b12","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b13','belief',NULL,1,NULL,'false',0,'{"id":"b13","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b14','belief',NULL,1,NULL,'false',0,'{"id":"b14","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b15','belief',NULL,1,NULL,'false',0,'{"id":"b15","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b16','belief',NULL,1,NULL,'false',0,'{"id":"b16","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b17','belief',NULL,1,NULL,'false',0,'{"id":"b17","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b18','belief',NULL,1,NULL,'false',0,'{"id":"b18","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b19','belief',NULL,1,NULL,'false',0,'{"id":"b19","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b20','belief',NULL,1,NULL,'false',0,'{"id":"b20","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b21','belief',NULL,1,NULL,'false',0,'{"id":"b21","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b22','belief',NULL,1,NULL,'false',0,'{"id":"b22","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b23','belief',NULL,1,NULL,'false',0,'{"id":"b23","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b24','belief',NULL,1,NULL,'false',0,'{"id":"b24","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b25','belief',NULL,1,NULL,'false',0,'{"id":"b25","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b26','belief',NULL,1,NULL,'false',0,'{"id":"b26","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b27','belief',NULL,1,NULL,'false',0,'{"id":"b27","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b28','belief',NULL,1,NULL,'false',0,'{"id":"b28","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b29','belief',NULL,1,NULL,'false',0,'{"id":"b29","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b30','belief',NULL,1,NULL,'false',0,'{"id":"b30","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b31','belief',NULL,1,NULL,'false',0,'{"id":"b31","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b32','belief',NULL,1,NULL,'false',0,'{"id":"b32","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b33','belief',NULL,1,NULL,'false',0,'{"id":"b33","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b34','belief',NULL,1,NULL,'false',0,'{"id":"b34","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b35','belief',NULL,1,NULL,'false',0,'{"id":"b35","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b36','belief',NULL,1,NULL,'false',0,'{"id":"b36","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b37','belief',NULL,1,NULL,'false',0,'{"id":"b37","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b38','belief',NULL,1,NULL,'false',0,'{"id":"b38","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('b39','belief',NULL,1,NULL,'false',0,'{"id":"b39","kind":"belief","text":"","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('f1','fact',NULL,0,NULL,'false',0,'{"id":"f1","kind":"fact","text":"The user flies to Tokyo on May 10","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('f2','fact',NULL,1,NULL,'true',0,'{"id":"f2","kind":"fact","text":"The user likes sushi","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('p1','plan',NULL,1,NULL,'false',0,'{"id":"p1","kind":"plan","text":"Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, Book a sushi dinner in Tokyo, near the hotel, for two, ","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
INSERT INTO "states" VALUES('m9','fact',NULL,1,NULL,'true',0,'{"id":"m9","kind":"fact","text":"the last one","atoms":[],"source":"user","status":null,"metadata":{},"created_at":null}');
CREATE TABLE term_df (
    term TEXT PRIMARY KEY,
    df INTEGER NOT NULL             -- how many memories carry the term
) WITHOUT ROWID;
INSERT INTO "term_df" VALUES('g:10',1);
INSERT INTO "term_df" VALUES('g:a',1);
INSERT INTO "term_df" VALUES('g:ast',1);
INSERT INTO "term_df" VALUES('g:boo',1);
INSERT INTO "term_df" VALUES('g:din',1);
INSERT INTO "term_df" VALUES('g:ear',1);
INSERT INTO "term_df" VALUES('g:fli',1);
INSERT INTO "term_df" VALUES('g:for',1);
INSERT INTO "term_df" VALUES('g:hot',1);
INSERT INTO "term_df" VALUES('g:hub',1);
INSERT INTO "term_df" VALUES('g:ies',1);
INSERT INTO "term_df" VALUES('g:ike',1);
INSERT INTO "term_df" VALUES('g:in',1);
INSERT INTO "term_df" VALUES('g:inn',1);
INSERT INTO "term_df" VALUES('g:kes',1);
INSERT INTO "term_df" VALUES('g:kyo',2);
INSERT INTO "term_df" VALUES('g:las',1);
INSERT INTO "term_df" VALUES('g:lie',1);
INSERT INTO "term_df" VALUES('g:lik',1);
INSERT INTO "term_df" VALUES('g:may',1);
INSERT INTO "term_df" VALUES('g:nea',1);
INSERT INTO "term_df" VALUES('g:ner',1);
INSERT INTO "term_df" VALUES('g:nne',1);
INSERT INTO "term_df" VALUES('g:oky',2);
INSERT INTO "term_df" VALUES('g:on',1);
INSERT INTO "term_df" VALUES('g:one',1);
INSERT INTO "term_df" VALUES('g:ook',1);
INSERT INTO "term_df" VALUES('g:ote',1);
INSERT INTO "term_df" VALUES('g:ser',2);
INSERT INTO "term_df" VALUES('g:shi',2);
INSERT INTO "term_df" VALUES('g:sus',2);
INSERT INTO "term_df" VALUES('g:tel',1);
INSERT INTO "term_df" VALUES('g:the',5);
INSERT INTO "term_df" VALUES('g:to',1);
INSERT INTO "term_df" VALUES('g:tok',2);
INSERT INTO "term_df" VALUES('g:two',1);
INSERT INTO "term_df" VALUES('g:use',2);
INSERT INTO "term_df" VALUES('g:ush',2);
CREATE TABLE terms (
    term TEXT NOT NULL,             -- 'a:<constant>' or 'g:<gram>' (stategraph.terms)
    doc INTEGER NOT NULL,           -- docs.seq
    PRIMARY KEY (term, doc)
) WITHOUT ROWID;
INSERT INTO "terms" VALUES('g:10',2);
INSERT INTO "terms" VALUES('g:a',4);
INSERT INTO "terms" VALUES('g:ast',5);
INSERT INTO "terms" VALUES('g:boo',4);
INSERT INTO "terms" VALUES('g:din',4);
INSERT INTO "terms" VALUES('g:ear',4);
INSERT INTO "terms" VALUES('g:fli',2);
INSERT INTO "terms" VALUES('g:for',4);
INSERT INTO "terms" VALUES('g:hot',4);
INSERT INTO "terms" VALUES('g:hub',1);
INSERT INTO "terms" VALUES('g:ies',2);
INSERT INTO "terms" VALUES('g:ike',3);
INSERT INTO "terms" VALUES('g:in',4);
INSERT INTO "terms" VALUES('g:inn',4);
INSERT INTO "terms" VALUES('g:kes',3);
INSERT INTO "terms" VALUES('g:kyo',2);
INSERT INTO "terms" VALUES('g:kyo',4);
INSERT INTO "terms" VALUES('g:las',5);
INSERT INTO "terms" VALUES('g:lie',2);
INSERT INTO "terms" VALUES('g:lik',3);
INSERT INTO "terms" VALUES('g:may',2);
INSERT INTO "terms" VALUES('g:nea',4);
INSERT INTO "terms" VALUES('g:ner',4);
INSERT INTO "terms" VALUES('g:nne',4);
INSERT INTO "terms" VALUES('g:oky',2);
INSERT INTO "terms" VALUES('g:oky',4);
INSERT INTO "terms" VALUES('g:on',2);
INSERT INTO "terms" VALUES('g:one',5);
INSERT INTO "terms" VALUES('g:ook',4);
INSERT INTO "terms" VALUES('g:ote',4);
INSERT INTO "terms" VALUES('g:ser',2);
INSERT INTO "terms" VALUES('g:ser',3);
INSERT INTO "terms" VALUES('g:shi',3);
INSERT INTO "terms" VALUES('g:shi',4);
INSERT INTO "terms" VALUES('g:sus',3);
INSERT INTO "terms" VALUES('g:sus',4);
INSERT INTO "terms" VALUES('g:tel',4);
INSERT INTO "terms" VALUES('g:the',1);
INSERT INTO "terms" VALUES('g:the',2);
INSERT INTO "terms" VALUES('g:the',3);
INSERT INTO "terms" VALUES('g:the',4);
INSERT INTO "terms" VALUES('g:the',5);
INSERT INTO "terms" VALUES('g:to',2);
INSERT INTO "terms" VALUES('g:tok',2);
INSERT INTO "terms" VALUES('g:tok',4);
INSERT INTO "terms" VALUES('g:two',4);
INSERT INTO "terms" VALUES('g:use',2);
INSERT INTO "terms" VALUES('g:use',3);
INSERT INTO "terms" VALUES('g:ush',3);
INSERT INTO "terms" VALUES('g:ush',4);
CREATE INDEX states_with_atoms ON states (has_atoms) WHERE has_atoms = 1;
COMMIT;

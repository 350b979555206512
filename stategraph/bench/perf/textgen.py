"""A seeded stream of text memories for ``stategraph bench perf --text`` (issue 13, item 4).

The stream is what one agent writes about one household over years, in English and Chinese,
one memory at a time: ``{"id", "kind", "text"}`` (and ``"status"`` for actions), text only,
for ``Memory.add`` with a grounder and the four rule packs to ground and link. Each memory
also comes as a :class:`TextMemory` naming its language, domain, role, the fact it rests on
and the atoms the grounding is meant to find, so a benchmark can check what it measures.

Shape of the stream, and why (a benchmark of linking is only as honest as the joins its
workload asks for: one constant that every memory shares would measure a hub, not an agent):

- **Time.** Memory ``i`` is written on day ``i // 40`` from 2025-01-01: an agent that writes
  40 memories a day, so 10^3 memories span 25 days, 10^4 eight months, 10^5 nearly seven
  years. Every date in a memory lies ahead of its writing day (appointments 1-45 days,
  trips 5-120, events 10-150, moves 1.5-5 months, expiries 4-13 months), so dates spread
  over the years the stream covers, and an appointment or a trip is on its own date.
- **Unrelated memories, about 65%.** Preferences (``prefers_cuisine``, which no rule uses),
  chit-chat, hobbies, notes and errands, as facts, beliefs, plans and actions; one in eight
  names the domains' own words but grounds to nothing a pack uses: hedged plans
  (``maybe(...)``) and negated ones ("won't travel to London this year"), the hard negatives.
- **Episodes of the day, about 30%.** A fact and 1-4 derived memories resting on it, in one
  language (about half each), dealt among the day's other memories (never before their
  fact). Of these facts, appointments and meetings are 66% (a reminder on the
  appointment's own date), money transfers 26% (the plan and the schedule resting on the
  request, and on KYC), trips 4% (flight or train, hotel, check-in, airport ride, empty
  home, pet care, packing, recommendations, each dated on or just before the trip), events
  held in a city 2% and a friend's, colleague's or relative's move 1% (their movers and
  parking permit): about 3.6 appointments and 1.4 transfers a day and a trip every four or
  five days, a busy household, each on its own date, amount and city.
- **Life events, rare, as in a life.** The user moves every 10-30 months (the move and what
  rests on it: commute, utilities to cancel, movers, local services and recommendations;
  four moves in 10^5 memories), changes jobs every 1-3 years, re-verifies KYC every 20-28
  months, gets a new income every 8-15 months (savings plans rest on it). The household's
  health changes slowly: a dose changes or a long-term drug starts every 1-3 months, a new
  diagnosis every 5-15 months, a short course (an antibiotic, a sleeping pill, and what it
  rules out) every 1-4 months, an allergy or a condition that rules drugs out every year or
  two; an identity document nears expiry every 7-16 months. A profile opens the stream
  (home city, workplace, KYC, proof of address, income, and the long-term drugs of a few
  family members). A first version drew health facts as often as appointments: a mother
  then had dozens of reasons to avoid ibuprofen and most health memories hit the linker's
  cap of alternatives (64 then), which no household's memory would do.
- **Follow-ups, about 3%.** What an agent writes most about health and home is not new facts
  but the errands resting on the standing ones: a refill or a dose reminder for a drug on
  record (about one a day), a recommendation or a local service in the home city (one every
  three days), each resting on the fact in force (the current dose; the move, or the first
  home). These are the realistic hubs: a home city gathers one or two hundred dependents, a
  long-standing dose a few dozen a year; nothing gathers thousands except KYC, which every
  transfer rests on (the profile, never among :meth:`TextWorkload.changes`).
- **Spread.** 150 cities (trips never to the current home), 14 appointment kinds weighted
  toward meetings, about 60 drugs, amounts log-uniform up to the standard KYC tier in nine
  currencies (no yen in Chinese: see the note at ``_CUR_ZH``), persons the grounding knows
  (health: user, spouse, mother, father, child, sibling; appointments: user, child,
  parents; documents: user, child, spouse; moves: friend, colleague, relative, neighbour,
  sibling, child). Derived memories carry their fact's values (date, city, drug and dose,
  amount and currency), so each joins its own fact and the few others sharing those values;
  date-free memories that every trip or move would support ("check in online for the
  return flight") are left out, and so are wordings that restate the fact's own atom ("book
  a flight to Tokyo for 2027-03-04" also grounds ``trip(...)``, which no rule derives, so
  the memory would never link).

At 10^5 (seed 0): unrelated 67%, episode and life facts 13.5%, derived 19.5%; of the
memories that are not unrelated, scheduling 63%, finance 26%, health 7%, relocation 4%.

Determinism and streaming. Day ``d`` is built from ``Random("textgen:SEED:d")`` and the life
events, a few a month, from ``Random("textgen:SEED:life")``; nothing depends on the clock,
hash seeds or set order. The stream of ``generate(n, seed)`` is a prefix of the stream for
any larger ``n`` (only the last day is cut short), the ``i``-th memory is built from its day
alone and the life events before it (:meth:`TextWorkload.memory`), and its id is ``m`` and
``i`` in seven digits (:meth:`TextWorkload.id_of`, nothing generated).

Measured (AMD EPYC, 2 cores, Python 3.11.7, spaCy 3.8.18, clingo 5.8.3):

- Generating 10^5 memories (iterating the state dicts, no grounding): 0.68-0.91 s; 10^6 in
  7.7 s at 46 MB peak RSS for the whole process (a day at a time).
- Grounding: 30,449 of 30,449 texts checked ground to exactly the atoms they name (the
  first 8,000 of seed 0; every 23rd of 10^5 of seed 1; of 10^5 for seeds 0-2, every
  memory of a rare template and up to 40 of each common one); no unrelated memory grounds
  to an atom any pack uses.
- Linking, the real path (``Memory(rules="all", grounder="stategraph.rule_grounder.v1")``,
  one ``add`` at a time, the first 1,000 memories): 184 of 184 derived memories (seed 0)
  and 173 of 173 (seed 1) rest on their episode fact through rule justifications, directly
  or through another derived memory of the episode; none of 679 and 695 unrelated memories
  is linked, as head or as premise (the adds took 23 s and 47 s).
- Linking at scale, the from-scratch ``RuleLinker`` over the named atoms of all 10^5
  (seed 0, 18 s): 99.6% of 19,532 derived memories rest on their fact. The rest are the
  packs' semantics, not mistakes of the generator: an action dated the day before its trip
  serves the nearest trip on or after its date (``next_date``), sometimes another one (7-15%
  of check-ins, pet care and packing); and a transfer plan for a sum asked for many times
  has more alternatives than the linker kept (64 then), its own request among those left
  out (5 of 2,592).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

__all__ = ["PER_DAY", "START", "TextMemory", "TextWorkload", "generate"]

Lang = Literal["en", "zh"]
Role = Literal["profile", "fact", "derived", "unrelated"]
_City = tuple[str, str, str]

PER_DAY = 40
"""Memories written per simulated day: one day is one independently seeded block."""

START = date(2025, 1, 1)
"""The day memory 0 is written."""

_UNRELATED_UNIT = 0.8
"""Chance that the next unit of a day is one unrelated memory (tuned so that about 65% of
the stream is unrelated: episodes average about 2.3 memories)."""

_HEALTH_FOLLOW_UP = 0.025
"""Chance that a unit is a refill or dose reminder for a drug on record (about one a day)."""

_HOME_FOLLOW_UP = 0.01
"""Chance that a unit is a recommendation or a local service in the home city."""

_EXECUTED = 0.15
"""Share of actions written as already carried out (``status: executed``)."""


@dataclass(frozen=True, slots=True)
class TextMemory:
    """One generated memory and what it is meant to be.

    Attributes:
        id: the state id (``m0000042``).
        kind: ``fact``, ``belief``, ``plan`` or ``action``.
        text: the memory as the agent wrote it.
        status: ``pending`` or ``executed`` for actions, else None.
        lang: ``en`` or ``zh``.
        domain: the rule pack it belongs to, or ``none`` for unrelated memories.
        role: ``profile`` (a standing fact others rest on: the opening profile, a KYC
            re-verification), ``fact`` (an episode's or a life event's fact), ``derived``
            (rests on ``episode``) or ``unrelated``.
        episode: the id of the fact a derived memory rests on (None for the others).
        atoms: the atoms the grounding is meant to find, sorted: for unrelated memories none,
            or only atoms no rule uses (``prefers_cuisine``, ``maybe(...)``).
    """

    id: str
    kind: str
    text: str
    status: str | None
    lang: Lang
    domain: str
    role: Role
    episode: str | None
    atoms: tuple[str, ...]

    def state(self) -> dict[str, str]:
        """The memory as ``Memory.add`` takes it: id, kind, text, and status for actions."""
        out = {"id": self.id, "kind": self.kind, "text": self.text}
        if self.status is not None:
            out["status"] = self.status
        return out


@dataclass(frozen=True, slots=True)
class _Draft:
    """A memory before it has a place in the stream."""

    kind: str
    text: str
    atoms: tuple[str, ...] = ()


@dataclass(slots=True)
class _Unit:
    """Memories written together: an episode (its fact first), or a single memory."""

    lang: Lang
    domain: str
    drafts: list[_Draft]
    first_role: Role
    episode: str | None = None
    """For a lone follow-up: the id of the standing fact it rests on."""
    change: Callable[[random.Random], _Draft | None] | None = None
    """For an episode: what superseding its fact says (None, or returning None: retract)."""


# ---- vocabulary -----------------------------------------------------------------------------
# Every surface form here is one the grounding lexicons know (grounding/lexicon/*.jsonl);
# tests/bench/test_textgen.py grounds samples of every template to hold it to that.

_CITIES: tuple[tuple[str, str, str], ...] = (
    ("beijing", "Beijing", "北京"), ("shanghai", "Shanghai", "上海"),
    ("shenzhen", "Shenzhen", "深圳"), ("guangzhou", "Guangzhou", "广州"),
    ("hangzhou", "Hangzhou", "杭州"), ("chengdu", "Chengdu", "成都"),
    ("tianjin", "Tianjin", "天津"), ("chongqing", "Chongqing", "重庆"),
    ("nanjing", "Nanjing", "南京"), ("wuhan", "Wuhan", "武汉"), ("xian", "Xi'an", "西安"),
    ("suzhou", "Suzhou", "苏州"), ("changsha", "Changsha", "长沙"),
    ("zhengzhou", "Zhengzhou", "郑州"), ("qingdao", "Qingdao", "青岛"),
    ("xiamen", "Xiamen", "厦门"), ("ningbo", "Ningbo", "宁波"), ("hefei", "Hefei", "合肥"),
    ("jinan", "Jinan", "济南"), ("fuzhou", "Fuzhou", "福州"), ("kunming", "Kunming", "昆明"),
    ("dalian", "Dalian", "大连"), ("shenyang", "Shenyang", "沈阳"),
    ("harbin", "Harbin", "哈尔滨"), ("changchun", "Changchun", "长春"),
    ("taiyuan", "Taiyuan", "太原"), ("nanchang", "Nanchang", "南昌"),
    ("nanning", "Nanning", "南宁"), ("guiyang", "Guiyang", "贵阳"),
    ("lanzhou", "Lanzhou", "兰州"), ("urumqi", "Urumqi", "乌鲁木齐"), ("lhasa", "Lhasa", "拉萨"),
    ("haikou", "Haikou", "海口"), ("sanya", "Sanya", "三亚"), ("zhuhai", "Zhuhai", "珠海"),
    ("dongguan", "Dongguan", "东莞"), ("foshan", "Foshan", "佛山"), ("wuxi", "Wuxi", "无锡"),
    ("changzhou", "Changzhou", "常州"), ("nantong", "Nantong", "南通"),
    ("xuzhou", "Xuzhou", "徐州"), ("yangzhou", "Yangzhou", "扬州"),
    ("shaoxing", "Shaoxing", "绍兴"), ("jiaxing", "Jiaxing", "嘉兴"),
    ("wenzhou", "Wenzhou", "温州"), ("quanzhou", "Quanzhou", "泉州"),
    ("yantai", "Yantai", "烟台"), ("weihai", "Weihai", "威海"), ("luoyang", "Luoyang", "洛阳"),
    ("guilin", "Guilin", "桂林"), ("lijiang", "Lijiang", "丽江"), ("baoding", "Baoding", "保定"),
    ("tangshan", "Tangshan", "唐山"), ("datong", "Datong", "大同"),
    ("yichang", "Yichang", "宜昌"), ("zhangjiajie", "Zhangjiajie", "张家界"),
    ("hong_kong", "Hong Kong", "香港"), ("macau", "Macau", "澳门"), ("taipei", "Taipei", "台北"),
    ("kaohsiung", "Kaohsiung", "高雄"), ("new_york", "New York", "纽约"),
    ("los_angeles", "Los Angeles", "洛杉矶"), ("chicago", "Chicago", "芝加哥"),
    ("houston", "Houston", "休斯顿"), ("philadelphia", "Philadelphia", "费城"),
    ("san_diego", "San Diego", "圣地亚哥"), ("dallas", "Dallas", "达拉斯"),
    ("austin", "Austin", "奥斯汀"), ("san_francisco", "San Francisco", "旧金山"),
    ("seattle", "Seattle", "西雅图"), ("denver", "Denver", "丹佛"),
    ("boston", "Boston", "波士顿"), ("portland", "Portland", "波特兰"),
    ("atlanta", "Atlanta", "亚特兰大"), ("miami", "Miami", "迈阿密"),
    ("orlando", "Orlando", "奥兰多"), ("las_vegas", "Las Vegas", "拉斯维加斯"),
    ("minneapolis", "Minneapolis", "明尼阿波利斯"), ("detroit", "Detroit", "底特律"),
    ("nashville", "Nashville", "纳什维尔"), ("pittsburgh", "Pittsburgh", "匹兹堡"),
    ("salt_lake_city", "Salt Lake City", "盐湖城"), ("honolulu", "Honolulu", "檀香山"),
    ("palo_alto", "Palo Alto", "帕洛阿尔托"), ("toronto", "Toronto", "多伦多"),
    ("vancouver", "Vancouver", "温哥华"), ("montreal", "Montreal", "蒙特利尔"),
    ("mexico_city", "Mexico City", "墨西哥城"), ("sao_paulo", "São Paulo", "圣保罗"),
    ("buenos_aires", "Buenos Aires", "布宜诺斯艾利斯"), ("lima", "Lima", "利马"),
    ("london", "London", "伦敦"), ("manchester", "Manchester", "曼彻斯特"),
    ("edinburgh", "Edinburgh", "爱丁堡"), ("dublin", "Dublin", "都柏林"),
    ("paris", "Paris", "巴黎"), ("lyon", "Lyon", "里昂"), ("berlin", "Berlin", "柏林"),
    ("munich", "Munich", "慕尼黑"), ("frankfurt", "Frankfurt", "法兰克福"),
    ("amsterdam", "Amsterdam", "阿姆斯特丹"), ("brussels", "Brussels", "布鲁塞尔"),
    ("zurich", "Zurich", "苏黎世"), ("geneva", "Geneva", "日内瓦"),
    ("vienna", "Vienna", "维也纳"), ("prague", "Prague", "布拉格"),
    ("budapest", "Budapest", "布达佩斯"), ("warsaw", "Warsaw", "华沙"),
    ("copenhagen", "Copenhagen", "哥本哈根"), ("stockholm", "Stockholm", "斯德哥尔摩"),
    ("oslo", "Oslo", "奥斯陆"), ("helsinki", "Helsinki", "赫尔辛基"),
    ("madrid", "Madrid", "马德里"), ("barcelona", "Barcelona", "巴塞罗那"),
    ("lisbon", "Lisbon", "里斯本"), ("rome", "Rome", "罗马"), ("milan", "Milan", "米兰"),
    ("florence", "Florence", "佛罗伦萨"), ("venice", "Venice", "威尼斯"),
    ("athens", "Athens", "雅典"), ("istanbul", "Istanbul", "伊斯坦布尔"),
    ("dubai", "Dubai", "迪拜"), ("doha", "Doha", "多哈"), ("cairo", "Cairo", "开罗"),
    ("nairobi", "Nairobi", "内罗毕"), ("cape_town", "Cape Town", "开普敦"),
    ("tokyo", "Tokyo", "东京"), ("osaka", "Osaka", "大阪"), ("kyoto", "Kyoto", "京都"),
    ("sapporo", "Sapporo", "札幌"), ("fukuoka", "Fukuoka", "福冈"),
    ("okinawa", "Okinawa", "冲绳"), ("seoul", "Seoul", "首尔"), ("busan", "Busan", "釜山"),
    ("singapore", "Singapore", "新加坡"), ("kuala_lumpur", "Kuala Lumpur", "吉隆坡"),
    ("bangkok", "Bangkok", "曼谷"), ("chiang_mai", "Chiang Mai", "清迈"),
    ("phuket", "Phuket", "普吉岛"), ("hanoi", "Hanoi", "河内"), ("manila", "Manila", "马尼拉"),
    ("jakarta", "Jakarta", "雅加达"), ("bali", "Bali", "巴厘岛"), ("mumbai", "Mumbai", "孟买"),
    ("delhi", "Delhi", "德里"), ("bangalore", "Bangalore", "班加罗尔"),
    ("kathmandu", "Kathmandu", "加德满都"), ("sydney", "Sydney", "悉尼"),
    ("melbourne", "Melbourne", "墨尔本"), ("brisbane", "Brisbane", "布里斯班"),
    ("perth", "Perth", "珀斯"), ("auckland", "Auckland", "奥克兰"),
)  # fmt: skip

# Persons: constant -> (en nouns, zh nouns). The user is written "the user" / 用户.
_KIN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "spouse": (("wife", "husband"), ("妻子", "丈夫")),
    "mother": (("mother", "mom"), ("母亲", "妈妈")),
    "father": (("father", "dad"), ("父亲", "爸爸")),
    "child": (("son", "daughter"), ("儿子", "女儿")),
    "sibling": (("sister", "brother"), ("姐姐", "哥哥", "妹妹", "弟弟")),
}
_MOVERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "friend": (("My friend", "My best friend", "My roommate"), ("朋友", "好友", "室友")),
    "colleague": (("My colleague", "My coworker", "My manager"), ("同事", "领导")),
    "relative": (("My cousin", "My uncle", "My aunt"), ("表妹", "表哥", "表姐")),
    "neighbor": (("Our neighbor", "My neighbour"), ("邻居",)),
    "sibling": (("My sister", "My brother"), ("姐姐", "哥哥", "妹妹")),
    "child": (("My son", "My daughter"), ("儿子", "女儿")),
}

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip
_WEEKDAYS = (("Monday", "周一"), ("Tuesday", "周二"), ("Wednesday", "周三"),
             ("Thursday", "周四"), ("Friday", "周五"))  # fmt: skip

# Appointment kinds: constant, weight, en noun phrase (fact, reminder), zh (fact, reminder).
_APPTS: tuple[tuple[str, int, str, str, str, str], ...] = (
    ("meeting", 30, "a team meeting", "the team meeting", "有个会议", "开会"),
    ("meeting", 10, "a client meeting", "the client meeting", "有个会议", "开会"),
    ("dentist", 10, "a dentist appointment", "the dentist appointment", "约了牙医", "看牙医"),
    ("doctor", 8, "a checkup", "the checkup", "去体检", "去体检"),
    ("eye_doctor", 4, "an eye exam", "the eye exam", "去眼科检查", "去眼科检查"),
    ("therapy", 6, "a therapy session", "the therapy session", "约了心理咨询", "去心理咨询"),
    ("vet", 5, "a vet appointment", "the vet appointment", "带宠物看兽医", "带宠物看兽医"),
    ("haircut", 8, "a haircut", "the haircut", "要理发", "理发"),
    ("visa", 2, "a visa interview", "the visa interview", "有签证面试", "参加签证面试"),
    ("bank", 4, "a bank appointment", "the bank appointment", "要去银行办事", "去银行"),
    ("job_interview", 3, "a job interview", "the job interview", "有个面试", "去面试"),
    ("car_service", 5, "a car service", "the car service", "要去做保养", "做保养"),
    ("medical_exam", 3, "a colonoscopy", "the colonoscopy", "做胃镜检查", "做胃镜检查"),
    ("surgery", 2, "surgery", "the surgery", "做手术", "做手术"),
)
_APPT_WEIGHTS = tuple(a[1] for a in _APPTS)

# Events held in a city: constant, en fact verb phrase, en reminder noun, zh fact, zh reminder.
_EVENTS: tuple[tuple[str, str, str, str, str], ...] = (
    ("conference", "is attending a conference", "the conference", "参加行业峰会", "参加峰会"),
    ("wedding", "is attending a wedding", "the wedding", "参加朋友的婚礼", "参加婚礼"),
    ("offsite", "has a team offsite", "the team offsite", "参加团建", "参加团建"),
    ("concert", "is going to a concert", "the concert", "看演唱会", "看演唱会"),
)

# Recommendation categories: constant, en phrases, zh phrases.
_CATEGORIES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("activities", ("things to do", "museums", "hiking trails"), ("景点", "周末活动")),
    ("restaurants", ("restaurants", "places to eat", "coffee shops"), ("餐厅", "美食")),
    ("fitness", ("yoga studios", "swimming pools"), ("瑜伽馆", "游泳馆")),
    ("shopping", ("supermarkets", "grocery stores"), ("超市", "商场")),
    ("healthcare", ("clinics", "hospitals"), ("诊所", "社区医院")),
    ("schools", ("kindergartens", "schools"), ("幼儿园", "小学")),
    ("housing", ("apartment listings", "rentals"), ("房源", "出租房")),
)
_TRIP_CATEGORIES = _CATEGORIES[:4]

# Drugs: constant -> (en, zh).
_DRUG: dict[str, tuple[str, str]] = {
    "metformin": ("metformin", "二甲双胍"), "amlodipine": ("amlodipine", "氨氯地平"),
    "lisinopril": ("lisinopril", "赖诺普利"), "losartan": ("losartan", "氯沙坦"),
    "atorvastatin": ("atorvastatin", "阿托伐他汀"), "rosuvastatin": ("rosuvastatin", "瑞舒伐他汀"),
    "simvastatin": ("simvastatin", "辛伐他汀"), "lovastatin": ("lovastatin", "洛伐他汀"),
    "levothyroxine": ("levothyroxine", "左甲状腺素"), "sertraline": ("sertraline", "舍曲林"),
    "escitalopram": ("escitalopram", "艾司西酞普兰"), "omeprazole": ("omeprazole", "奥美拉唑"),
    "famotidine": ("famotidine", "法莫替丁"), "allopurinol": ("allopurinol", "别嘌醇"),
    "warfarin": ("warfarin", "华法林"), "apixaban": ("apixaban", "阿哌沙班"),
    "rivaroxaban": ("rivaroxaban", "利伐沙班"), "dabigatran": ("dabigatran", "达比加群"),
    "edoxaban": ("edoxaban", "依度沙班"), "enoxaparin": ("enoxaparin", "依诺肝素"),
    "insulin": ("insulin", "胰岛素"), "cetirizine": ("cetirizine", "西替利嗪"),
    "loratadine": ("loratadine", "氯雷他定"), "melatonin": ("melatonin", "褪黑素"),
    "clopidogrel": ("clopidogrel", "氯吡格雷"), "amoxicillin": ("amoxicillin", "阿莫西林"),
    "nitrofurantoin": ("nitrofurantoin", "呋喃妥因"), "salbutamol": ("salbutamol", "沙丁胺醇"),
    "sumatriptan": ("sumatriptan", "舒马普坦"), "ibuprofen": ("ibuprofen", "布洛芬"),
    "naproxen": ("naproxen", "萘普生"), "aspirin": ("aspirin", "阿司匹林"),
    "diclofenac": ("diclofenac", "双氯芬酸"), "celecoxib": ("celecoxib", "塞来昔布"),
    "meloxicam": ("meloxicam", "美洛昔康"), "indomethacin": ("indomethacin", "吲哚美辛"),
    "ketorolac": ("ketorolac", "酮咯酸"), "ketoprofen": ("ketoprofen", "酮洛芬"),
    "metronidazole": ("metronidazole", "甲硝唑"), "tinidazole": ("tinidazole", "替硝唑"),
    "disulfiram": ("disulfiram", "双硫仑"), "cefoperazone": ("cefoperazone", "头孢哌酮"),
    "diazepam": ("diazepam", "地西泮"), "alprazolam": ("alprazolam", "阿普唑仑"),
    "lorazepam": ("lorazepam", "劳拉西泮"), "clonazepam": ("clonazepam", "氯硝西泮"),
    "zolpidem": ("zolpidem", "唑吡坦"), "codeine": ("codeine", "可待因"),
    "oxycodone": ("oxycodone", "羟考酮"), "tramadol": ("tramadol", "曲马多"),
    "morphine": ("morphine", "吗啡"), "sildenafil": ("sildenafil", "西地那非"),
    "tadalafil": ("tadalafil", "他达拉非"), "nitroglycerin": ("nitroglycerin", "硝酸甘油"),
    "isosorbide": ("isosorbide", "硝酸异山梨酯"), "phenelzine": ("phenelzine", "苯乙肼"),
    "tranylcypromine": ("tranylcypromine", "反苯环丙胺"), "selegiline": ("selegiline", "司来吉兰"),
    "fluoxetine": ("fluoxetine", "氟西汀"), "paroxetine": ("paroxetine", "帕罗西汀"),
    "citalopram": ("citalopram", "西酞普兰"), "lithium": ("lithium", "碳酸锂"),
    "methotrexate": ("methotrexate", "甲氨蝶呤"), "doxycycline": ("doxycycline", "多西环素"),
    "tetracycline": ("tetracycline", "四环素"), "minocycline": ("minocycline", "米诺环素"),
    "ciprofloxacin": ("ciprofloxacin", "环丙沙星"), "levofloxacin": ("levofloxacin", "左氧氟沙星"),
    "enalapril": ("enalapril", "依那普利"), "ramipril": ("ramipril", "雷米普利"),
    "spironolactone": ("spironolactone", "螺内酯"), "cephalexin": ("cephalexin", "头孢氨苄"),
    "trimethoprim_sulfamethoxazole": ("Bactrim", "复方新诺明"),
}  # fmt: skip

# Chronic drugs taken at a dose: constant -> doses as (number, unit) with unit mg, mcg or iu.
_DOSES: dict[str, tuple[tuple[str, str], ...]] = {
    "metformin": (("500", "mg"), ("850", "mg"), ("1000", "mg")),
    "amlodipine": (("5", "mg"), ("10", "mg")),
    "lisinopril": (("5", "mg"), ("10", "mg"), ("20", "mg"), ("40", "mg")),
    "losartan": (("25", "mg"), ("50", "mg"), ("100", "mg")),
    "atorvastatin": (("10", "mg"), ("20", "mg"), ("40", "mg"), ("80", "mg")),
    "rosuvastatin": (("5", "mg"), ("10", "mg"), ("20", "mg")),
    "simvastatin": (("10", "mg"), ("20", "mg"), ("40", "mg")),
    "levothyroxine": (("25", "mcg"), ("50", "mcg"), ("75", "mcg"), ("100", "mcg")),
    "sertraline": (("50", "mg"), ("100", "mg")),
    "escitalopram": (("5", "mg"), ("10", "mg"), ("20", "mg")),
    "omeprazole": (("20", "mg"), ("40", "mg")),
    "famotidine": (("20", "mg"), ("40", "mg")),
    "allopurinol": (("100", "mg"), ("300", "mg")),
    "warfarin": (("2", "mg"), ("5", "mg")),
    "apixaban": (("2.5", "mg"), ("5", "mg")),
    "insulin": (("8", "iu"), ("10", "iu"), ("12", "iu"), ("20", "iu")),
    "cetirizine": (("10", "mg"),),
    "melatonin": (("3", "mg"), ("5", "mg")),
    "clopidogrel": (("75", "mg"),),
}
_UNIT_EN = {"mg": "mg", "mcg": "mcg", "iu": "units"}
_UNIT_ZH = {"mg": "毫克", "mcg": "微克", "iu": "单位"}

# Conditions treated first-line (health pack first_line/2): constant, en, zh, drug.
_CONDITIONS: tuple[tuple[str, str, str, str], ...] = (
    ("diabetes", "type 2 diabetes", "2型糖尿病", "metformin"),
    ("hypertension", "high blood pressure", "高血压", "amlodipine"),
    ("bacterial_infection", "strep throat", "细菌感染", "amoxicillin"),
    ("uti", "a urinary tract infection", "尿路感染", "nitrofurantoin"),
    ("asthma", "asthma", "哮喘", "salbutamol"),
    ("high_cholesterol", "high cholesterol", "高血脂", "atorvastatin"),
    ("hypothyroidism", "hypothyroidism", "甲减", "levothyroxine"),
    ("depression", "depression", "抑郁症", "sertraline"),
    ("anxiety", "anxiety disorder", "焦虑症", "escitalopram"),
    ("acid_reflux", "acid reflux", "胃食管反流", "omeprazole"),
    ("migraine", "migraines", "偏头痛", "sumatriptan"),
    ("hay_fever", "hay fever", "花粉症", "cetirizine"),
    ("atrial_fibrillation", "atrial fibrillation", "房颤", "apixaban"),
    ("gout", "gout", "痛风", "allopurinol"),
    ("insomnia", "insomnia", "失眠", "melatonin"),
)

_NSAIDS = ("ibuprofen", "naproxen", "aspirin", "diclofenac", "celecoxib", "meloxicam",
           "indomethacin", "ketorolac", "ketoprofen")  # fmt: skip

# Short courses and what they rule out (health pack interacts/2): drugs, target, weight.
# A target is a tuple of drugs, or one of the substances below.
_ACUTE: tuple[tuple[tuple[str, ...], tuple[str, ...] | str, int], ...] = (
    (("metronidazole", "tinidazole", "cefoperazone", "diazepam", "alprazolam", "lorazepam",
      "clonazepam", "zolpidem", "codeine", "oxycodone", "tramadol", "morphine"), "alcohol", 50),
    (("doxycycline", "tetracycline", "minocycline", "ciprofloxacin", "levofloxacin"), "dairy", 28),
    (("sildenafil", "tadalafil"), ("nitroglycerin", "isosorbide"), 4),
    (("nitroglycerin", "isosorbide"), ("sildenafil", "tadalafil"), 4),
    (("phenelzine", "tranylcypromine", "selegiline"), "tyramine", 3),
    (("methotrexate", "lithium"), _NSAIDS, 6),
    (("enalapril", "ramipril", "spironolactone"), "potassium", 5),
)  # fmt: skip
_ACUTE_WEIGHTS = tuple(w for _, _, w in _ACUTE)

# Long-term drugs (the ones _DOSES doses) that rule something out.
_CHRONIC_RULES_OUT: dict[str, tuple[str, ...] | str] = {
    "warfarin": _NSAIDS, "apixaban": _NSAIDS, "simvastatin": "grapefruit",
    "lisinopril": "potassium",
}  # fmt: skip

# Substances: en and zh "P should avoid ..." predicates (P's subject is prefixed).
_SUBSTANCE: dict[str, tuple[str, str]] = {
    "alcohol": ("should not drink alcohol", "不能喝酒"),
    "grapefruit": ("should stay away from grapefruit juice", "不宜喝西柚汁"),
    "tyramine": ("should avoid aged cheese", "不能吃陈年奶酪"),
    "dairy": ("should avoid dairy products", "吃药期间不能喝牛奶"),
    "potassium": ("should avoid potassium supplements", "不能吃钾补充剂"),
}

# Allergies to drug classes: constant, en, zh, drugs it rules out.
_ALLERGIES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("penicillin", "penicillin", "青霉素", ("amoxicillin",)),
    ("sulfa", "sulfa drugs", "磺胺类药物", ("trimethoprim_sulfamethoxazole",)),
    ("cephalosporins", "cephalosporins", "头孢类", ("cephalexin", "cefoperazone")),
    ("nsaids", "NSAIDs", "非甾体抗炎药", _NSAIDS),
)

# Conditions that rule things out (health pack avoids/2): constant, en and zh predicates,
# who can have it, what it rules out (drugs, or "alcohol").
_AVOIDS: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("pregnancy", "is pregnant", "怀孕了", ("user", "spouse"),
     (*_NSAIDS, "alcohol", "lisinopril", "enalapril", "simvastatin", "atorvastatin",
      "warfarin", "doxycycline")),
    ("peptic_ulcer", "has a stomach ulcer", "有胃溃疡", ("user", "mother", "father"), _NSAIDS),
    ("kidney_disease", "has chronic kidney disease", "有慢性肾病", ("user", "mother", "father"),
     _NSAIDS),
    ("liver_disease", "has fatty liver disease", "有脂肪肝", ("user", "mother", "father"),
     ("alcohol",)),
)  # fmt: skip

# Identity documents: constant, en, zh, zh renewal verb.
_DOCS: tuple[tuple[str, str, str, str], ...] = (
    ("passport", "passport", "护照", "续签"),
    ("id_card", "ID card", "身份证", "更新"),
    ("drivers_license", "driver's license", "驾照", "更新"),
)

# Currencies: constant, standard-tier maximum (finance pack tier_max/3), en words, zh word.
_CURRENCIES: dict[str, tuple[int, tuple[str, ...], str]] = {
    "cny": (50000, ("yuan", "RMB"), "元"),
    "usd": (7000, ("dollars", "USD"), "美元"),
    "eur": (6500, ("euros", "EUR"), "欧元"),
    "gbp": (5500, ("pounds", "GBP"), "英镑"),
    "jpy": (1000000, ("yen",), "日元"),
    "hkd": (55000, ("Hong Kong dollars", "HKD"), "港币"),
    "sgd": (9500, ("Singapore dollars", "SGD"), "新加坡元"),
    "cad": (9500, ("Canadian dollars", "CAD"), "加元"),
    "aud": (10500, ("Australian dollars", "AUD"), "澳元"),
}
_CUR_EN = (("usd", 40), ("eur", 15), ("gbp", 10), ("cad", 8), ("aud", 8), ("sgd", 5),
           ("hkd", 5), ("jpy", 5), ("cny", 4))  # fmt: skip
_CUR_ZH = (("cny", 62), ("usd", 15), ("hkd", 8), ("eur", 6), ("gbp", 4), ("aud", 2),
           ("sgd", 2), ("cad", 1))  # fmt: skip
"""No yen in Chinese: the zh AMOUNT pattern (grounding/zh/values.jsonl) refuses a number
followed by 日, meant for dates ("5日"), so "汇款5000日元" grounds to nothing and
"汇款45万日元" to ``transfer_request(user,45,unknown)``."""
_RECIPIENTS = (("the landlord", "房东"), ("his mother", "妈妈"), ("a friend", "朋友"),
               ("the tutor", "家教"), ("the contractor", "装修师傅"),
               ("her sister", "妹妹"))  # fmt: skip

_UTILITIES = (("broadband", "home broadband", "退宽带"), ("gas", "gas", "停掉燃气"),
              ("electricity", "electricity", "停掉电费"),
              ("water", "water", "停掉水费"))  # fmt: skip
# Local services: constant, en plan, zh plan ({c}: the city).
_SERVICES: tuple[tuple[str, str, str], ...] = (
    ("parking_permit", "Apply for a residential parking permit in {c}.", "申请{c}的停车证"),
    ("library_card", "Get a library card at the {c} Public Library.", "在{c}办一张借书证"),
    (
        "mailing_address",
        "Update the mailing address to the new place in {c}.",
        "把收货地址改到{c}新家",
    ),
    ("gym", "Sign up for a gym membership in {c}.", "帮用户查一下{c}的健身房"),
    ("broadband", "Set up internet for the new apartment in {c}.", "给{c}新家开通宽带"),
)


# ---- small helpers ---------------------------------------------------------------------------


def _q(value: str) -> str:
    """A value as a clingo string term, the way atoms carry dates and doses."""
    return f'"{value}"'


def _ym(d: date) -> str:
    return _q(f"{d.year}-{d.month:02d}")


def _en_date(rng: random.Random, d: date) -> str:
    if rng.random() < 0.5:
        return d.isoformat()
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _zh_date(rng: random.Random, d: date) -> str:
    if rng.random() < 0.4:
        return d.isoformat()
    return f"{d.year}年{d.month}月{d.day}日"


def _date(rng: random.Random, lang: Lang, d: date) -> str:
    return _en_date(rng, d) if lang == "en" else _zh_date(rng, d)


def _month(lang: Lang, d: date) -> str:
    return f"{_MONTHS[d.month - 1]} {d.year}" if lang == "en" else f"{d.year}年{d.month}月"


def _city(lang: Lang, c: _City) -> str:
    return c[1] if lang == "en" else c[2]


def _subject(rng: random.Random, lang: Lang, person: str) -> str:
    """A person as the subject of a sentence: "The user's mother", 母亲."""
    if person == "user":
        return "The user" if lang == "en" else "用户"
    noun = rng.choice(_KIN[person][0 if lang == "en" else 1])
    return f"The user's {noun}" if lang == "en" else noun


def _lower(subject: str) -> str:
    return subject[0].lower() + subject[1:] if subject.startswith("The ") else subject


def _amount(rng: random.Random, cur: str, top: float | None = None) -> int:
    """Log-uniform up to ``top`` (default: the standard tier), three digits kept (or two:
    round sums are common, and a sum paid again is a tie a real memory has)."""
    hi = top if top is not None else _CURRENCIES[cur][0]
    value = math.exp(rng.uniform(math.log(hi / 150), math.log(hi)))
    digits = 2 if rng.random() < 0.2 else 3
    step = 10 ** max(0, int(math.log10(value)) + 1 - digits)
    return int(max(step, value // step * step))


def _en_amount(rng: random.Random, a: int, cur: str) -> str:
    number = f"{a:,}" if rng.random() < 0.5 else str(a)
    return f"{number} {rng.choice(_CURRENCIES[cur][1])}"


def _zh_amount(a: int, cur: str) -> str:
    return f"{a}{_CURRENCIES[cur][2]}"


def _weighted(rng: random.Random, pairs: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([p for p, _ in pairs], [w for _, w in pairs])[0]


def _lang(rng: random.Random) -> Lang:
    return "en" if rng.random() < 0.5 else "zh"


@dataclass
class _Day:
    """What one day's builders may read of the standing facts."""

    today: date
    home: _City
    home_pos: int
    drugs: list[tuple[str, str, tuple[str, str] | None, int]]
    """Drugs on record: person, drug, current dose (None: prescribed, no dose stated), and
    the position of the fact that says so."""

    def away_city(self, rng: random.Random) -> _City:
        """A destination that is not where the user lives."""
        while True:
            c = rng.choice(_CITIES)
            if c != self.home:
                return c


# ---- scheduling ------------------------------------------------------------------------------


def _appointment(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    kind, _, en_fact, en_rem, zh_fact, zh_rem = rng.choices(_APPTS, _APPT_WEIGHTS)[0]
    person = rng.choices(("user", "child", "mother", "father"), (82, 8, 5, 5))[0]
    when = ctx.today + timedelta(days=rng.randint(1, 45))
    subj = _subject(rng, lang, person)

    def says(r: random.Random, d: date) -> _Draft:
        t = (
            f"{subj} has {en_fact} on {_en_date(r, d)}."
            if lang == "en"
            else f"{subj}{_zh_date(r, d)}{zh_fact}"
        )
        return _Draft("fact", t, (f"appointment({person},{kind},{_q(d.isoformat())})",))

    if lang == "en":
        rem = f"Remind {_lower(subj)} about {en_rem} on {_en_date(rng, when)}."
    else:
        rem = f"{_zh_date(rng, when)}提醒{subj}{zh_rem}"
    reminder = _Draft(
        "action", rem, (f"appointment_reminder({person},{kind},{_q(when.isoformat())})",)
    )
    return _Unit(
        lang,
        "scheduling",
        [says(rng, when), reminder],
        "fact",
        change=lambda r: says(r, when + timedelta(days=r.randint(1, 14))),
    )


def _trip_derived(
    rng: random.Random, lang: Lang, city: _City, when: date, event: bool
) -> list[_Draft]:
    """What a trip (or an event away) calls for, each tied to its date or its city."""
    c, cn, en = city[0], _city(lang, city), lang == "en"

    def on(days_before: int) -> tuple[str, str]:
        d = when - timedelta(days=days_before)
        return _date(rng, lang, d), _q(d.isoformat())

    def flight() -> _Draft:
        text, d = on(0)
        if rng.random() < 0.25:
            t = f"Book train tickets for {text}." if en else f"帮用户订{text}的高铁票"
            return _Draft("action", t, (f"booking(user,train,{d})",))
        t = f"Book the flight for {text}." if en else f"帮用户订{text}的机票"
        return _Draft("action", t, (f"booking(user,flight,{d})",))

    def hotel() -> _Draft:
        text, d = on(0)
        t = f"Book the hotel in {cn} for {text}." if en else f"帮用户订{text}{cn}的酒店"
        return _Draft("action", t, (f"book_hotel(user,{c})", f"booking(user,hotel,{d})"))

    def check_in() -> _Draft:
        text, d = on(rng.randint(0, 1))
        t = (
            f"Check in online for the flight on {text}."
            if en
            else f"{text} 帮用户办理航班的在线值机"
        )
        return _Draft("action", t, (f"check_in(user,{d})",))

    def airport() -> _Draft:
        text, d = on(0)
        t = f"Order a cab to the airport for {text}." if en else f"{text} 早上帮用户叫车去机场"
        return _Draft("action", t, (f"booking(user,airport_transfer,{d})",))

    def away() -> _Draft:
        text, d = on(0)
        t = f"Nobody home from {text}." if en else f"{text}起家里没人"
        return _Draft("belief", t, (f"away_from_home(user,{d})",))

    def pet() -> _Draft:
        text, d = on(rng.randint(0, 1))
        t = f"Book a dog sitter to walk the dog from {text}." if en else f"{text}把猫送去宠物店"
        return _Draft("action", t, (f"pet_care(user,{d})",))

    def packing() -> _Draft:
        text, d = on(rng.randint(0, 2))
        t = f"Pack the suitcase on {text}." if en else f"{text}提醒用户收拾行李"
        return _Draft("action", t, (f"preparation(user,{d})",))

    def recommend() -> _Draft:
        k, en_words, zh_words = rng.choice(_TRIP_CATEGORIES)
        t = (
            f"Recommend {rng.choice(en_words)} in {cn}."
            if en
            else f"推荐{cn}的{rng.choice(zh_words)}"
        )
        return _Draft("plan", t, (f"recommend(user,{k},{c})",))

    options: list[Callable[[], _Draft]] = [hotel, airport, away, pet, packing, recommend]
    if not event:
        options += [flight, check_in, flight]
    rng.shuffle(options)
    return [make() for make in options[: rng.choice((1, 2, 2, 3, 3, 4))]]


def _trip(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    city = ctx.away_city(rng)
    when = ctx.today + timedelta(days=rng.randint(5, 120))

    def says(r: random.Random, d: date) -> _Draft:
        cn, text = _city(lang, city), _date(r, lang, d)
        if lang == "en":
            options = (
                f"The user is flying to {cn} on {text}.",
                f"Business trip to {cn} on {text}.",
                f"The user is traveling to {cn} on {text}.",
            )
        else:
            options = (f"用户{text}去{cn}出差", f"用户{text}飞往{cn}旅游", f"用户{text}去{cn}旅行")
        return _Draft("fact", r.choice(options), (f"trip(user,{city[0]},{_q(d.isoformat())})",))

    return _Unit(
        lang,
        "scheduling",
        [says(rng, when), *_trip_derived(rng, lang, city, when, event=False)],
        "fact",
        change=lambda r: says(r, when + timedelta(days=r.randint(2, 21))),
    )


def _event(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    kind, en_fact, en_rem, zh_fact, zh_rem = rng.choice(_EVENTS)
    city = ctx.away_city(rng)
    when = ctx.today + timedelta(days=rng.randint(10, 150))

    def says(r: random.Random, d: date) -> _Draft:
        cn, text, iso = _city(lang, city), _date(r, lang, d), _q(d.isoformat())
        if lang == "en":
            t = f"The user {en_fact} in {cn} on {text}."
        else:
            t = f"用户{text}{'去' if kind == 'wedding' else '在'}{cn}{zh_fact}"
        atoms = (f"appointment(user,{kind},{iso})", f"event_in(user,{kind},{city[0]},{iso})")
        return _Draft("fact", t, atoms)

    derived = _trip_derived(rng, lang, city, when, event=True)
    if rng.random() < 0.5:
        text = _date(rng, lang, when)
        t = (
            f"Remind the user about {en_rem} on {text}."
            if lang == "en"
            else f"{text}提醒用户{zh_rem}"
        )
        atom = f"appointment_reminder(user,{kind},{_q(when.isoformat())})"
        derived = [_Draft("action", t, (atom,)), *derived[:3]]
    return _Unit(
        lang,
        "scheduling",
        [says(rng, when), *derived],
        "fact",
        change=lambda r: says(r, when + timedelta(days=r.randint(2, 30))),
    )


# ---- finance ---------------------------------------------------------------------------------


def _transfer(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    cur = _weighted(rng, _CUR_EN if lang == "en" else _CUR_ZH)
    amount = _amount(rng, cur)
    en_r, zh_r = rng.choice(_RECIPIENTS)

    def says(r: random.Random, a: int) -> _Draft:
        if lang == "en":
            verb = r.choice(("transfer", "send"))
            t = f"The user wants to {verb} {_en_amount(r, a, cur)} to {en_r}."
        else:
            t = r.choice(
                (
                    f"用户想转账{_zh_amount(a, cur)}给{zh_r}",
                    f"用户想给{zh_r}汇款{_zh_amount(a, cur)}",
                )
            )
        return _Draft("fact", t, (f"transfer_request(user,{a},{cur})",))

    en_day, zh_day = rng.choice(_WEEKDAYS)
    if lang == "en":
        money = _en_amount(rng, amount, cur)
        plan = rng.choice(
            (f"Wire {money} to {en_r} on {en_day}.", f"Transfer {money} to {en_r} next week.")
        )
        sched = f"A transfer of {_en_amount(rng, amount, cur)} is scheduled."
    else:
        plan = f"{zh_day}帮用户给{zh_r}转账{_zh_amount(amount, cur)}"
        sched = f"已安排转账{_zh_amount(amount, cur)}给{zh_r}"
    derived = [
        _Draft("plan", plan, (f"planned_transfer(user,{amount},{cur})",)),
        _Draft("belief", sched, (f"scheduled_transfer(user,{amount},{cur})",)),
    ]
    rng.shuffle(derived)
    return _Unit(
        lang,
        "finance",
        [says(rng, amount), *derived[: rng.randint(1, 2)]],
        "fact",
        change=lambda r: says(r, _amount(r, cur)),
    )


def _document(rng: random.Random, lang: Lang, person: str, doc: str, when: date) -> _Unit:
    _, en_d, zh_d, zh_verb = next(d for d in _DOCS if d[0] == doc)
    subj = _subject(rng, lang, person)

    def says(r: random.Random, d: date) -> _Draft:
        text = _date(r, lang, d)
        t = f"{subj}'s {en_d} expires on {text}." if lang == "en" else f"{subj}的{zh_d}{text}到期"
        return _Draft("fact", t, (f"document_expires({person},{doc},{_q(d.isoformat())})",))

    text = _date(rng, lang, when)
    if lang == "en":
        owner = "the" if person == "user" else f"{_lower(subj)}'s"
        t = f"Remind the user to renew {owner} {en_d} before {text}."
    else:
        t = f"提醒用户在{text}前{zh_verb}{'' if person == 'user' else subj + '的'}{zh_d}"
    renewal = _Draft("action", t, (f"document_renewal({person},{doc},{_q(when.isoformat())})",))
    return _Unit(
        lang,
        "finance",
        [says(rng, when), renewal],
        "fact",
        change=lambda r: says(r, when + timedelta(days=r.randint(365, 3650))),
    )


def _income_fact(rng: random.Random, lang: Lang, amount: int, cur: str) -> _Draft:
    if lang == "en":
        t = f"The user's monthly take-home income is {_en_amount(rng, amount, cur)}."
    else:
        t = f"用户税后月薪{_zh_amount(amount, cur)}"
    return _Draft("fact", t, (f"income(user,{amount},{cur})",))


def _income(rng: random.Random, lang: Lang, amount: int, cur: str) -> _Unit:
    save = _amount(rng, cur, amount * 0.4)
    if lang == "en":
        money = _en_amount(rng, save, cur)
        texts = (
            f"The user can put aside {money} every month.",
            f"Transfer {money} to the savings account on the first of each month.",
        )
    else:
        money = _zh_amount(save, cur)
        texts = (f"用户每个月能攒下{money}", f"每月15号转{money}到余额宝")
    drafts = [
        _income_fact(rng, lang, amount, cur),
        _Draft("belief", texts[0], (f"savings(user,{save},{cur})",)),
        _Draft("action", texts[1], (f"savings_transfer(user,{save},{cur})",)),
    ]
    return _Unit(lang, "finance", drafts[: rng.randint(2, 3)], "fact", change=lambda r: None)


# ---- relocation ------------------------------------------------------------------------------


def _others_move(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    """A friend, colleague or relative moves: what the agent does for them rests on it."""
    person = rng.choices(sorted(_MOVERS), (10, 25, 35, 10, 15, 10))[0]
    subj = rng.choice(_MOVERS[person][0 if lang == "en" else 1])
    src, dst = rng.sample(_CITIES, 2)
    month = ctx.today + timedelta(days=rng.randint(30, 150))

    def says(r: random.Random, d: date) -> _Draft:
        m, a, b = _month(lang, d), _city(lang, src), _city(lang, dst)
        if lang == "en":
            t = f"{subj} is moving from {a} to {b} in {m}."
        else:
            t = f"{'我的' if r.random() < 0.5 else ''}{subj}计划{m}从{a}搬到{b}"
        return _Draft("fact", t, (f"moves({person},{src[0]},{dst[0]},{_ym(d)})",))

    b, m = _city(lang, dst), _month(lang, month)
    if lang == "en":
        who = subj.replace("My ", "my ").replace("Our ", "our ")
        permit, movers = (
            f"{subj} needs a parking permit in {b}.",
            f"Help {who} book movers for the move in {m}.",
        )
    else:
        permit, movers = f"{subj}需要在{b}办停车证", f"帮{subj}订{m}的搬家公司"
    derived = [
        _Draft("plan", permit, (f"local_service({person},parking_permit,{dst[0]})",)),
        _Draft("action", movers, (f"booking({person},movers,{_ym(month)})",)),
    ]
    rng.shuffle(derived)
    return _Unit(
        lang,
        "relocation",
        [says(rng, month), *derived[: rng.randint(1, 2)]],
        "fact",
        change=lambda r: says(r, month + timedelta(days=r.randint(31, 90))),
    )


def _home_service(rng: random.Random, lang: Lang, home: _City) -> _Draft:
    """A recommendation or a local service in the home city: rests on where the user lives."""
    c = _city(lang, home)
    if rng.random() < 0.6:
        k, en_words, zh_words = rng.choice(_CATEGORIES)
        if lang == "en":
            w = rng.choice(en_words)
            t = rng.choice((f"Recommend {w} in {c}.", f"Good {w} near the user's home in {c}."))
        else:
            w = rng.choice(zh_words)
            t = rng.choice((f"给用户推荐{c}的{w}", f"{c}的{w}推荐"))
        return _Draft("plan", t, (f"recommend(user,{k},{home[0]})",))
    service, en_t, zh_t = rng.choice(_SERVICES)
    t = (en_t if lang == "en" else zh_t).format(c=c)
    return _Draft("plan", t, (f"local_service(user,{service},{home[0]})",))


def _user_move(rng: random.Random, lang: Lang, src: _City, dst: _City, when: date) -> _Unit:
    """The user's own move: the richest episode, and the one the home city rests on."""

    def says(r: random.Random, d: date) -> _Draft:
        a, b, m = _city(lang, src), _city(lang, dst), _month(lang, d)
        t = (
            f"The user plans to move from {a} to {b} in {m}."
            if lang == "en"
            else f"用户计划{m}从{a}搬到{b}"
        )
        return _Draft("fact", t, (f"moves(user,{src[0]},{dst[0]},{_ym(d)})",))

    def change(r: random.Random) -> _Draft:
        if r.random() < 0.5:
            return says(r, when + timedelta(days=r.randint(31, 120)))
        a = _city(lang, src)
        t = (
            f"The user decided to stay in {a}."
            if lang == "en"
            else f"用户最终决定留在{a}，取消搬迁计划"
        )
        return _Draft("fact", t, (f"stays(user,{src[0]})",))

    b, m, month = _city(lang, dst), _month(lang, when), _ym(when)
    u, en_u, zh_u = rng.choice(_UTILITIES)
    if lang == "en":
        texts = (
            f"Commute time is computed for {b}.",
            f"Cancel the {en_u} before the move.",
            f"Hire movers for the move in {m}.",
            f"Book a moving truck for the move in {m}.",
        )
    else:
        texts = (
            f"通勤时间按{b}计算",
            f"搬家前{zh_u}",
            f"帮用户订{m}的搬家公司",
            f"为搬家预订{m}的货车",
        )
    options = [
        _Draft("belief", texts[0], (f"commute_city(user,{dst[0]})",)),
        _Draft("action", texts[1], ("around(user,move)", f"cancel_utility(user,{u})")),
        _Draft("action", texts[2], (f"booking(user,movers,{month})",)),
        _Draft("action", texts[3], (f"booking(user,moving_truck,{month})",)),
        _home_service(rng, lang, dst),
    ]
    rng.shuffle(options)
    return _Unit(lang, "relocation", [says(rng, when), *options[:4]], "fact", change=change)


def _job(rng: random.Random, lang: Lang, city: _City) -> _Unit:
    c, cid = _city(lang, city), city[0]
    fact = f"The user got a new job in {c}." if lang == "en" else f"用户换工作到{c}上班"
    commute = f"Commute time is computed for {c}." if lang == "en" else f"通勤时间按{c}计算"
    drafts = [
        _Draft("fact", fact, (f"works_in(user,{cid})",)),
        _Draft("belief", commute, (f"commute_city(user,{cid})",)),
    ]
    return _Unit(lang, "relocation", drafts, "fact")


# ---- health ----------------------------------------------------------------------------------


def _dose_text(rng: random.Random, lang: Lang, subj: str, drug: str, dose: tuple[str, str]) -> str:
    (en, zh), (num, unit) = _DRUG[drug], dose
    if lang == "en":
        if unit == "iu":
            return f"{subj} takes {en} {num} units before dinner."
        return f"{subj} takes {en} {num} {unit} every {rng.choice(('morning', 'evening'))}."
    return f"{subj}每天{'注射' if unit == 'iu' else '服用'}{zh}{num}{_UNIT_ZH[unit]}"


def _dose_fact(
    rng: random.Random, lang: Lang, person: str, drug: str, dose: tuple[str, str]
) -> _Draft:
    atoms = (f"dose({person},{drug},{_q(''.join(dose))})", f"takes({person},{drug})")
    return _Draft("fact", _dose_text(rng, lang, _subject(rng, lang, person), drug, dose), atoms)


def _med_errand(
    rng: random.Random, lang: Lang, person: str, drug: str, dose: tuple[str, str] | None
) -> _Draft:
    """A refill or a reminder for a drug on record: tied to the dose when it names one."""
    subj = _subject(rng, lang, person)
    en, zh = _DRUG[drug]
    pick = rng.random() if dose is not None else 1.0
    if dose is not None and pick < 0.8:
        x, num, unit = _q("".join(dose)), dose[0], dose[1]
        amount_en, amount_zh = f"{num} {_UNIT_EN[unit]}", num + _UNIT_ZH[unit]
        if pick < 0.4 and (lang == "en" or person == "user"):
            if lang == "en":
                owner = "the" if person == "user" else f"{_lower(subj)}'s"
                t = f"Refill {owner} {amount_en} {en} prescription."
            else:
                t = f"续配{amount_zh}的{zh}"
            return _Draft("action", t, (f"refill_dose({person},{drug},{x})",))
        if lang == "en" and person == "user":
            t = f"Remind the user to take {en} {amount_en} every morning."
        elif lang == "en":
            day = rng.choice(_WEEKDAYS)[0]
            t = f"Remind the user to pick up {_lower(subj)}'s {en} {amount_en} on {day}."
        elif person == "user":
            t = f"提醒用户每天早上吃{zh}{amount_zh}"
        else:
            t = f"提醒用户去药店取{subj}的{zh}{amount_zh}"
        return _Draft("action", t, (f"med_reminder({person},{drug},{x})",))
    if person == "user":
        t = f"Remind the user to refill {en} monthly." if lang == "en" else f"提醒用户按月续配{zh}"
    elif lang == "en":
        t = f"Remind the user to refill {_lower(subj)}'s {en}."
    else:
        t = f"提醒用户续配{subj}的{zh}"
    return _Draft("action", t, (f"refill_reminder({person},{drug})",))


def _rules_out(
    rng: random.Random, lang: Lang, person: str, target: str, taken: str | None = None
) -> list[_Draft]:
    """``person`` must not take or have ``target``, and what to offer instead where the
    health pack has a substitute (paracetamol for an NSAID, alcohol-free drinks)."""
    subj = _subject(rng, lang, person)
    if person == "spouse":
        subj = "The user's wife" if lang == "en" else "妻子"
    if target in _SUBSTANCE:
        en_p, zh_p = _SUBSTANCE[target]
        if lang == "en" and target == "alcohol" and taken is not None:
            t = f"{subj} should not drink alcohol while on {_DRUG[taken][0]}."
        elif lang == "zh" and target == "alcohol" and taken is not None and person == "user":
            t = f"用户吃{_DRUG[taken][1]}期间不能喝酒"
        else:
            t = f"{subj} {en_p}." if lang == "en" else f"{subj}{zh_p}"
    elif lang == "en":
        t = f"{subj} must not take {_DRUG[target][0]}."
    else:
        t = f"{subj}{rng.choice(('不能吃', '禁用'))}{_DRUG[target][1]}"
    out = [_Draft("belief", t, (f"contraindicated({person},{target})",))]
    if target in _NSAIDS and (person == "user" or lang == "zh") and rng.random() < 0.5:
        if lang == "en":
            t = rng.choice(
                (
                    "Suggest paracetamol when the user's knee aches.",
                    "Recommend Tylenol for the user's fever.",
                )
            )
        else:
            t = f"头痛时建议{_subject(rng, lang, person)}吃对乙酰氨基酚"
        out.append(_Draft("plan", t, (f"suggest_instead({person},acetaminophen)",)))
    elif target == "alcohol" and person == "user" and rng.random() < 0.5:
        en = "Order alcohol-free drinks for the user at the wedding dinner."
        out.append(
            _Draft(
                "plan",
                en if lang == "en" else "聚会上给用户准备无醇饮料",
                ("suggest_instead(user,non_alcoholic)",),
            )
        )
    return out


def _targets(rng: random.Random, target: tuple[str, ...] | str) -> list[str]:
    if isinstance(target, str):
        return [target]
    return rng.sample(target, min(len(target), rng.choice((1, 1, 2))))


def _start_drug(
    rng: random.Random,
    lang: Lang,
    person: str,
    drug: str,
    dose: tuple[str, str],
    old: tuple[str, str] | None,
) -> _Unit:
    """A long-term drug started, or its dose changed: the refills and reminders tied to the
    dose rest on it, and what the drug rules out."""
    drafts = [_dose_fact(rng, lang, person, drug, dose)]
    if old is None and drug in _CHRONIC_RULES_OUT:
        drafts += _rules_out(rng, lang, person, _targets(rng, _CHRONIC_RULES_OUT[drug])[0])[:2]
    drafts.append(_med_errand(rng, lang, person, drug, dose))
    if rng.random() < 0.4:
        drafts.append(_med_errand(rng, lang, person, drug, dose))
    others = [d for d in _DOSES[drug] if d != dose]
    return _Unit(
        lang,
        "health",
        drafts,
        "fact",
        change=(lambda r: _dose_fact(r, lang, person, drug, r.choice(others))) if others else None,
    )


def _diagnosis(rng: random.Random, lang: Lang, person: str, cond: str) -> _Unit:
    _, en_c, zh_c, drug = next(c for c in _CONDITIONS if c[0] == cond)
    subj = _subject(rng, lang, person)
    fact = f"{subj} was diagnosed with {en_c}." if lang == "en" else f"{subj}确诊{zh_c}"
    drafts = [_Draft("fact", fact, (f"diagnosed({person},{cond})",))]
    if person == "user" and rng.random() < 0.7:
        en, zh = _DRUG[drug]
        t = f"The doctor prescribed {en}." if lang == "en" else f"医生给用户开了{zh}"
        drafts.append(_Draft("belief", t, (f"prescribed(user,{drug})",)))
    if len(drafts) == 1 or rng.random() < 0.5:
        drafts.append(_med_errand(rng, lang, person, drug, None))
    return _Unit(lang, "health", drafts, "fact")


def _acute(
    rng: random.Random, lang: Lang, person: str, drug: str, target: tuple[str, ...] | str
) -> _Unit:
    """A short course (an antibiotic, a sleeping pill) and what it rules out meanwhile."""
    subj = _subject(rng, lang, person)
    en, zh = _DRUG[drug]
    fact = f"{subj} takes {en}." if lang == "en" else f"{subj}每天服用{zh}"
    drafts = [_Draft("fact", fact, (f"takes({person},{drug})",))]
    for t in _targets(rng, target):
        drafts += _rules_out(rng, lang, person, t, drug)
    return _Unit(lang, "health", drafts[:5], "fact")


def _allergy(rng: random.Random, lang: Lang, person: str, allergen: str) -> _Unit:
    _, en_a, zh_a, targets = next(a for a in _ALLERGIES if a[0] == allergen)
    subj = _subject(rng, lang, person)
    fact = f"{subj} is allergic to {en_a}." if lang == "en" else f"{subj}对{zh_a}过敏"
    drafts = [_Draft("fact", fact, (f"allergic({person},{allergen})",))]
    for t in _targets(rng, targets):
        drafts += _rules_out(rng, lang, person, t)
    return _Unit(lang, "health", drafts[:5], "fact")


def _condition(rng: random.Random, lang: Lang, person: str, cond: str) -> _Unit:
    _, en_p, zh_p, _, targets = next(a for a in _AVOIDS if a[0] == cond)
    subj = _subject(rng, lang, person)
    if person == "spouse":
        subj = "The user's wife" if lang == "en" else "妻子"
    fact = f"{subj} {en_p}." if lang == "en" else f"{subj}{zh_p}"
    drafts = [_Draft("fact", fact, (f"diagnosed({person},{cond})",))]
    for t in _targets(rng, targets):
        drafts += _rules_out(rng, lang, person, t)
    return _Unit(lang, "health", drafts[:5], "fact")


# ---- unrelated -------------------------------------------------------------------------------

_CUISINES = (("Thai food", "泰国菜", "thai"), ("Cantonese food", "粤菜", "cantonese"),
             ("Sichuan food", "川菜", "sichuan"), ("Italian food", "意大利菜", "italian"),
             ("Japanese food", "日料", "japanese"), ("Korean food", "韩餐", "korean"),
             ("Mexican food", "墨西哥菜", "mexican"), ("Indian food", "印度菜", "indian"),
             ("French food", "法餐", "french"), ("hot pot", "火锅", "hotpot"))  # fmt: skip
_SPORTS = (("tennis", "网球"), ("badminton", "羽毛球"), ("basketball", "篮球"),
           ("table tennis", "乒乓球"), ("golf", "高尔夫"), ("volleyball", "排球"))  # fmt: skip
_TOPICS = (("electric cars", "电动车"), ("ancient Rome", "古罗马"), ("black holes", "黑洞"),
           ("coffee brewing", "咖啡冲泡"), ("jazz history", "爵士乐历史"),
           ("urban gardening", "城市园艺"), ("machine learning", "机器学习"),
           ("bird watching", "观鸟"), ("photography", "摄影"), ("chess openings", "象棋开局"),
           ("space exploration", "太空探索"), ("home espresso", "家用咖啡机"))  # fmt: skip
_LANGUAGES = (("Spanish", "西班牙语"), ("Japanese", "日语"), ("French", "法语"),
              ("German", "德语"), ("Korean", "韩语"), ("Italian", "意大利语"))  # fmt: skip
_COLOURS = (("green", "绿色"), ("blue", "蓝色"), ("yellow", "黄色"), ("purple", "紫色"),
            ("orange", "橙色"))  # fmt: skip
_DISHES = (("dumplings", "饺子"), ("noodles", "面条"), ("sourdough bread", "酸面包"),
           ("mapo tofu", "麻婆豆腐"), ("banana bread", "香蕉面包"),
           ("fried rice", "炒饭"))  # fmt: skip
_BOOKS = (("a mystery novel", "一本推理小说"), ("a biography of Einstein", "一本爱因斯坦传记"),
          ("a book about gardening", "一本园艺书"), ("a science fiction novel", "一本科幻小说"),
          ("a history of the Silk Road", "一本讲丝绸之路的历史书"))  # fmt: skip
_KIN_WORDS = (("sister", "姐姐"), ("brother", "哥哥"), ("cousin", "表妹"), ("friend", "朋友"),
              ("colleague", "同事"), ("neighbour", "邻居"))  # fmt: skip

# (kind, en, zh) with slots {city} {cuisine} {sport} {topic} {language} {colour} {dish} {day}
# {book} {kin} {month}: none may ground to an atom a pack uses (the test holds them to it).
_UNRELATED: tuple[tuple[str, str, str], ...] = (
    ("fact", "The user likes {cuisine}.", "用户喜欢{cuisine}"),
    ("fact", "The user prefers window seats on long flights.", "用户喜欢靠窗的座位"),
    ("fact", "The user's favourite colour is {colour}.", "用户最喜欢的颜色是{colour}"),
    ("fact", "The weather in {city} was lovely today.", "今天{city}天气很好"),
    ("fact", "The user watched a documentary about {city}.", "用户看了一部关于{city}的纪录片"),
    ("fact", "The user is reading {book}.", "用户在读{book}"),
    ("fact", "The user finished {book} on {day}.", "用户{day}读完了{book}"),
    ("fact", "The user plays {sport} on {day} mornings.", "用户每{day}上午打{sport}"),
    ("fact", "The user is learning {language}.", "用户在学{language}"),
    ("fact", "The user asked how to make {dish}.", "用户问怎么做{dish}"),
    ("fact", "The user's {kin} called about the weekend.", "用户的{kin}打电话聊周末的安排"),
    ("fact", "The meeting notes are in the shared folder.", "会议纪要在共享文件夹里"),
    ("fact", "Thanks, that was helpful!", "谢谢，很有帮助"),
    ("fact", "Good morning!", "早上好"),
    ("fact", "The user thinks {city} is lovely in autumn.", "用户觉得{city}的秋天很美"),
    ("fact", "The user's laptop battery is getting weak.", "用户的笔记本电脑电池不太行了"),
    ("fact", "The user's {kin} won a {sport} match.", "用户的{kin}赢了{sport}比赛"),
    ("belief", "The user seems to enjoy jazz.", "用户似乎很喜欢爵士乐"),
    ("belief", "The user probably reads before bed.", "用户睡前大概会看书"),
    ("belief", "The user cares a lot about {topic}.", "用户很关心{topic}"),
    ("belief", "The user is in a better mood on {day}s.", "用户{day}的心情通常更好"),
    ("plan", "Suggest a podcast about {topic} next time.", "下次推荐一个关于{topic}的播客"),
    (
        "plan",
        "Share a few {language} learning apps with the user.",
        "给用户分享几个学{language}的应用",
    ),
    ("plan", "Ask the user about {book} next week.", "下周问问用户{book}读得怎么样"),
    ("action", "Send the user the article about {topic}.", "给用户发那篇关于{topic}的文章"),
    ("action", "Remind the user to water the plants.", "提醒用户给花浇水"),
    ("action", "Draft a birthday message for the user's {kin}.", "给{kin}写一段生日祝福"),
    ("action", "Look up the opening hours of the bookstore.", "查一下书店的营业时间"),
    ("action", "Save the recipe for {dish}.", "把{dish}的做法存下来"),
)
# The domains' own words in memories that must not link: hedged (maybe(...), which no pack
# uses) and negated.
_NEAR_MISSES: tuple[tuple[str, str, str], ...] = (
    ("fact", "The user might travel to {city} in {month}.", "用户或许会去{city}旅行"),
    ("fact", "The user is considering relocating to {city}.", "用户在考虑移居{city}"),
    ("fact", "The user won't travel to {city} this year.", "用户今年不去{city}旅游了"),
    ("fact", "The user is not moving to {city} after all.", "用户不搬去{city}了"),
    ("fact", "The user doesn't drink alcohol.", "用户不喝酒"),
    ("fact", "The passport does not need renewing.", "护照不用续签"),
)


def _unrelated(rng: random.Random, lang: Lang, ctx: _Day) -> _Unit:
    near = rng.random() < 0.12
    kind, en_t, zh_t = rng.choice(_NEAR_MISSES if near else _UNRELATED)
    city = rng.choice(_CITIES)
    cuisine = rng.choice(_CUISINES)
    future = ctx.today + timedelta(days=rng.randint(30, 300))
    z = int(lang == "zh")
    slots = {
        "city": _city(lang, city),
        "cuisine": cuisine[z],
        "sport": rng.choice(_SPORTS)[z],
        "topic": rng.choice(_TOPICS)[z],
        "language": rng.choice(_LANGUAGES)[z],
        "colour": rng.choice(_COLOURS)[z],
        "dish": rng.choice(_DISHES)[z],
        "day": rng.choice(_WEEKDAYS)[z],
        "book": rng.choice(_BOOKS)[z],
        "kin": rng.choice(_KIN_WORDS)[z],
        "month": _month(lang, future),
    }
    text = (zh_t if z else en_t).format(**slots)
    atoms: tuple[str, ...] = ()
    if en_t.startswith("The user likes {cuisine}"):
        atoms = (f"prefers_cuisine(user,{cuisine[2]})",)
    elif "might travel" in en_t:
        atoms = (f"maybe(trip(user,{city[0]},{'unknown' if z else _ym(future)}))",)
    elif "relocating" in en_t:
        atoms = (f"maybe(moves(user,unknown,{city[0]},unknown))",)
    return _Unit(lang, "none", [_Draft(kind, text, atoms)], "unrelated")


# ---- life events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Event:
    """One life event: a standing fact (and what rests on it) that opens its day."""

    day: int
    pos: int
    what: str
    person: str = "user"
    item: str = ""
    dose: tuple[str, str] | None = None
    old: tuple[str, str] | None = None
    target: tuple[str, ...] | str = ()
    city: _City | None = None
    src: _City | None = None
    when: date | None = None
    amount: int = 0


_CLOCKS: dict[str, tuple[int, int, int, int]] = {
    # kind: first event between day a and b, then every c to d days.
    "move": (60, 400, 300, 900),
    "job": (200, 900, 365, 1100),
    "kyc": (600, 840, 600, 840),
    "income": (240, 450, 240, 450),
    "dose": (10, 60, 25, 90),
    "diagnosis": (30, 300, 150, 450),
    "acute": (10, 90, 30, 120),
    "allergy": (60, 600, 300, 800),
    "condition": (60, 600, 300, 800),
    "document": (30, 300, 200, 500),
}
_HEALTH_PEOPLE = ("user", "spouse", "mother", "father", "child", "sibling")
_DOC_PAIRS = (("user", "passport"), ("user", "id_card"), ("user", "drivers_license"),
              ("child", "passport"), ("spouse", "passport"), ("child", "id_card"))  # fmt: skip


class _Life:
    """The user's and the household's life events, drawn lazily in day order from their own
    seed (a few a month), with the standing facts each day can rest on."""

    def __init__(self, seed: int) -> None:
        self._rng = r = random.Random(f"textgen:{seed}:life")
        self.home0: _City = r.choice(_CITIES)
        self.work0: _City = self.home0 if r.random() < 0.7 else r.choice(_CITIES)
        self.currency = r.choice(("cny", "usd", "eur", "gbp"))
        lo, hi = {
            "cny": (12000, 60000),
            "usd": (4000, 15000),
            "eur": (3000, 10000),
            "gbp": (2500, 9000),
        }[self.currency]
        self.income0 = r.randint(lo, hi) // 100 * 100
        self._income = self.income0
        self._home = self.home0
        self.events: list[_Event] = []
        self._days: list[int] = []
        self._next = {k: r.randint(a, b) for k, (a, b, _, _) in _CLOCKS.items()}
        self._until = 0
        self._slot = 0
        self._had: set[tuple[str, str]] = set()
        self._drugs: dict[tuple[str, str], tuple[str, str] | None] = {}
        self.home_log: list[tuple[int, _City, int]] = [(0, self.home0, 0)]
        self.drug_log: list[tuple[int, str, str, tuple[str, str] | None, int]] = []
        for person in ("user", "mother", "father", "spouse"):
            if r.random() < 0.6:
                drug = r.choice(sorted(_DOSES))
                self._add(0, "start", person=person, item=drug, dose=r.choice(_DOSES[drug]))

    def _add(self, day: int, what: str, **payload: Any) -> _Event:
        """Record an event; it takes the next place at the start of its day."""
        self._slot = self._slot + 1 if self._days and self._days[-1] == day else 0
        event = _Event(day, day * PER_DAY + self._slot + (5 if day == 0 else 0), what, **payload)
        self.events.append(event)
        self._days.append(day)
        if what == "move" and event.city is not None:
            self.home_log.append((day, event.city, event.pos))
        elif what == "start":
            self.drug_log.append((day, event.person, event.item, event.dose, event.pos))
            self._drugs[(event.person, event.item)] = event.dose
        elif what == "diagnosis" and (event.person, str(event.target)) not in self._drugs:
            # The first-line drug is on record from the diagnosis on, with no dose yet.
            drug = str(event.target)
            self.drug_log.append((day, event.person, drug, None, event.pos))
            self._drugs[(event.person, drug)] = None
        return event

    def upto(self, day: int) -> None:
        """Draw every event up to and including ``day``."""
        while self._until < day:
            self._until += 1
            for what in _CLOCKS:
                if self._next[what] == self._until:
                    self._draw(self._until, what)
                    self._next[what] = self._until + self._rng.randint(*_CLOCKS[what][2:])

    def _draw(self, day: int, what: str) -> None:
        r = self._rng
        if what == "move":
            dst = r.choice([c for c in _CITIES if c != self._home])
            when = START + timedelta(days=day + r.randint(45, 150))
            self._add(day, "move", city=dst, src=self._home, when=when)
            self._home = dst
        elif what == "job":
            self._add(day, "job", city=self._home if r.random() < 0.7 else r.choice(_CITIES))
        elif what == "kyc":
            self._add(day, "kyc")
        elif what == "income":
            self._income = int(self._income * r.uniform(1.03, 1.15)) // 100 * 100
            self._add(day, "income", amount=self._income)
        elif what == "dose":
            dosed = sorted(k for k in self._drugs if k[1] in _DOSES and len(_DOSES[k[1]]) > 1)
            if dosed and r.random() < 0.75:
                person, drug = r.choice(dosed)
                old = self._drugs[(person, drug)]
                dose = r.choice([d for d in _DOSES[drug] if d != old])
                self._add(day, "start", person=person, item=drug, dose=dose, old=old)
            else:
                person, drug = r.choice(_HEALTH_PEOPLE), r.choice(sorted(_DOSES))
                self._add(day, "start", person=person, item=drug, dose=r.choice(_DOSES[drug]))
        elif what == "diagnosis":
            person = r.choice(_HEALTH_PEOPLE)
            new = [c for c in _CONDITIONS if (person, c[0]) not in self._had]
            if new:  # a person is diagnosed with a condition once
                cond, _, _, drug = r.choice(new)
                self._had.add((person, cond))
                self._add(day, "diagnosis", person=person, item=cond, target=drug)
        elif what == "acute":
            drugs, target, _ = r.choices(_ACUTE, _ACUTE_WEIGHTS)[0]
            self._add(
                day, "acute", person=r.choice(_HEALTH_PEOPLE), item=r.choice(drugs), target=target
            )
        elif what == "allergy":
            person, allergen = r.choice(_HEALTH_PEOPLE), r.choice(_ALLERGIES)[0]
            if (person, allergen) not in self._had:
                self._had.add((person, allergen))
                self._add(day, "allergy", person=person, item=allergen)
        elif what == "condition":
            cond, _, _, people, _ = r.choice(_AVOIDS)
            person = r.choice(people)
            if (person, cond) not in self._had:
                self._had.add((person, cond))
                self._add(day, "condition", person=person, item=cond)
        else:
            pairs = [p for p in _DOC_PAIRS if p not in self._had]
            if pairs:
                person, doc = r.choice(pairs)
                self._had.add((person, doc))
                when = START + timedelta(days=day + r.randint(120, 400))
                self._add(day, "document", person=person, item=doc, when=when)

    def on(self, day: int) -> list[_Event]:
        """The events of one day, in the order they open it."""
        self.upto(day)
        i = bisect.bisect_left(self._days, day)
        j = bisect.bisect_right(self._days, day)
        return self.events[i:j]

    def standing(self, day: int) -> _Day:
        """The standing facts once ``day``'s events are written: home and drugs on record."""
        self.upto(day)
        _, home, home_pos = self.home_log[
            bisect.bisect_right([h[0] for h in self.home_log], day) - 1
        ]
        drugs: dict[tuple[str, str], tuple[tuple[str, str] | None, int]] = {}
        for d, person, drug, dose, pos in self.drug_log:
            if d > day:
                break
            drugs[(person, drug)] = (dose, pos)
        return _Day(
            START + timedelta(days=day),
            home,
            home_pos,
            [(p, m, dose, pos) for (p, m), (dose, pos) in sorted(drugs.items())],
        )


def _life_unit(rng: random.Random, e: _Event, life: _Life) -> _Unit:
    """The episode a life event writes."""
    lang = _lang(rng)
    if e.what == "move" and e.src is not None and e.city is not None and e.when is not None:
        return _user_move(rng, lang, e.src, e.city, e.when)
    if e.what == "job" and e.city is not None:
        return _job(rng, lang, e.city)
    if e.what == "kyc":
        t = "KYC re-verification completed for the user." if lang == "en" else "用户身份验证通过"
        return _Unit(lang, "finance", [_Draft("fact", t, ("identity_verified(user)",))], "profile")
    if e.what == "income":
        return _income(rng, lang, e.amount, life.currency)
    if e.what == "start" and e.dose is not None:
        unit = _start_drug(rng, lang, e.person, e.item, e.dose, e.old)
        if e.day == 0:
            unit.first_role, unit.change = "profile", None
        return unit
    if e.what == "diagnosis":
        return _diagnosis(rng, lang, e.person, e.item)
    if e.what == "acute":
        return _acute(rng, lang, e.person, e.item, e.target)
    if e.what == "allergy":
        return _allergy(rng, lang, e.person, e.item)
    if e.what == "condition":
        return _condition(rng, lang, e.person, e.item)
    if e.what == "document" and e.when is not None:
        return _document(rng, lang, e.person, e.item, e.when)
    raise AssertionError(f"unknown life event {e.what!r}")


def _profile(rng: random.Random, life: _Life) -> list[_Unit]:
    """The facts the stream opens with: where the user lives and works, KYC, income."""
    facts: list[tuple[str, str, str, str]] = [
        ("relocation", "The user lives in {h}.", "用户住在{h}", f"lives_in(user,{life.home0[0]})"),
        (
            "relocation",
            "The user works in {w}.",
            "用户在{w}上班",
            f"works_in(user,{life.work0[0]})",
        ),
        (
            "finance",
            "The user's identity has been verified.",
            "用户已完成实名认证",
            "identity_verified(user)",
        ),
        (
            "finance",
            "The user submitted proof of address.",
            "用户已提交地址证明",
            "address_verified(user)",
        ),
    ]
    out = []
    for domain, en, zh, atom in facts:
        lang = _lang(rng)
        t = (en if lang == "en" else zh).format(
            h=_city(lang, life.home0), w=_city(lang, life.work0)
        )
        out.append(_Unit(lang, domain, [_Draft("fact", t, (atom,))], "profile"))
    lang = _lang(rng)
    out.append(
        _Unit(lang, "finance", [_income_fact(rng, lang, life.income0, life.currency)], "profile")
    )
    return out


# ---- days ------------------------------------------------------------------------------------

_Builder = Callable[[random.Random, Lang, _Day], _Unit]
_EPISODES: tuple[tuple[_Builder, float], ...] = (
    (_appointment, 67), (_transfer, 26), (_trip, 4), (_event, 2), (_others_move, 1),
)  # fmt: skip
_BUILDERS = tuple(b for b, _ in _EPISODES)
_WEIGHTS = tuple(w for _, w in _EPISODES)


def _day_units(day: int, seed: int, life: _Life) -> tuple[list[_Unit], list[_Unit]]:
    """The units that open the day (profile, life events) and the rest, in order."""
    rng = random.Random(f"textgen:{seed}:{day}")
    fixed = _profile(rng, life) if day == 0 else []
    fixed += [_life_unit(rng, e, life) for e in life.on(day)]
    ctx = life.standing(day)
    free = PER_DAY - sum(len(u.drafts) for u in fixed)
    rest: list[_Unit] = []
    while free > 0:
        r, lang = rng.random(), _lang(rng)
        if r < _UNRELATED_UNIT:
            unit = _unrelated(rng, lang, ctx)
        elif r < _UNRELATED_UNIT + _HEALTH_FOLLOW_UP and ctx.drugs:
            person, drug, dose, pos = rng.choice(ctx.drugs)
            unit = _Unit(
                lang, "health", [_med_errand(rng, lang, person, drug, dose)], "derived", _mid(pos)
            )
        elif r < _UNRELATED_UNIT + _HEALTH_FOLLOW_UP + _HOME_FOLLOW_UP:
            unit = _Unit(
                lang,
                "relocation",
                [_home_service(rng, lang, ctx.home)],
                "derived",
                _mid(ctx.home_pos),
            )
        else:
            unit = rng.choices(_BUILDERS, _WEIGHTS)[0](rng, lang, ctx)
            if len(unit.drafts) > free:
                continue
        rest.append(unit)
        free -= len(unit.drafts)
    return fixed, rest


def _place(day: int, seed: int, life: _Life) -> tuple[list[TextMemory], list[_Unit], list[int]]:
    """One day's memories in stream order, its units, and where each unit's first memory sits.

    The units that open the day keep their places; every other memory is dealt in a random
    interleaving that keeps each episode's order (its fact first), so derived memories follow
    their fact at some distance within the day, among unrelated ones.
    """
    fixed, rest = _day_units(day, seed, life)
    units = fixed + rest
    rng = random.Random(f"textgen:{seed}:{day}:order")
    deal = [u for u, unit in enumerate(units) for _ in unit.drafts[1 if u < len(fixed) else 0 :]]
    rng.shuffle(deal)
    base = day * PER_DAY
    out: list[TextMemory] = []
    first = [-1] * len(units)
    taken = [0] * len(units)
    for u in [*range(len(fixed)), *deal]:
        unit, j, pos = units[u], taken[u], base + len(out)
        taken[u] += 1
        draft = unit.drafts[j]
        role: Role
        if j == 0:
            first[u] = pos
            role, episode = unit.first_role, unit.episode
        else:
            role, episode = "derived", _mid(first[u])
        status = None
        if draft.kind == "action":
            status = "executed" if rng.random() < _EXECUTED else "pending"
        out.append(
            TextMemory(
                _mid(pos),
                draft.kind,
                draft.text,
                status,
                unit.lang,
                unit.domain,
                role,
                episode,
                tuple(sorted(draft.atoms)),
            )
        )
    return out, units, first


def _mid(i: int) -> str:
    return f"m{i:07d}"


# ---- the workload ----------------------------------------------------------------------------


class TextWorkload:
    """A seeded stream of ``n`` text memories; see the module docstring for its shape.

    Iterating yields the state dicts ``Memory.add`` takes, built a day at a time, so a stream
    of 10^5 never holds more than one day's memories (and the life events: a few a month).
    """

    def __init__(self, n: int, seed: int) -> None:
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        self.n = n
        self.seed = seed
        self._life = _Life(seed)

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[dict[str, str]]:
        return (m.state() for m in self.memories())

    @property
    def days(self) -> int:
        """How many days the stream covers (the last may be cut short)."""
        return -(-self.n // PER_DAY)

    @staticmethod
    def id_of(i: int) -> str:
        """The id of the ``i``-th memory, without generating anything."""
        return _mid(i)

    def memories(self, start: int = 0, stop: int | None = None) -> Iterator[TextMemory]:
        """The memories from ``start`` up to ``stop`` (default: the end), a day at a time."""
        stop = self.n if stop is None else min(stop, self.n)
        for day in range(start // PER_DAY, -(-stop // PER_DAY)):
            memories = self._day(day)[0]
            lo, hi = max(0, start - day * PER_DAY), min(PER_DAY, stop - day * PER_DAY)
            yield from memories[lo:hi]

    def memory(self, i: int) -> TextMemory:
        """The ``i``-th memory, built from its day alone."""
        if not 0 <= i < self.n:
            raise IndexError(f"memory {i} is outside a stream of {self.n}")
        return self._day(i // PER_DAY)[0][i % PER_DAY]

    def _day(self, day: int) -> tuple[list[TextMemory], list[_Unit], list[int]]:
        return _place(day, self.seed, self._life)

    def changes(self, k: int) -> list[dict[str, Any]]:
        """``k`` revisions of distinct facts of the stream, for timing ``revise``.

        Each is a mapping that ``Change.model_validate`` (and ``Memory.revise``) takes: a
        ``supersede`` by a new fact in the fact's language (an appointment or a trip moved, a
        dose or an amount changed, a move postponed or called off, a document renewed), or a
        ``retract`` where nothing natural replaces it (a diagnosis, a short course, an
        allergy). The facts are episode and life-event facts (never the profile), drawn from
        days spread over the whole stream; each change stands on its own (apply any of them,
        in any order, to the loaded stream). A new fact's id is the old id and ``.v2``. Fewer
        than ``k`` come back only when the stream has fewer facts.
        """
        rng = random.Random(f"textgen:{self.seed}:changes")
        days = list(range(self.days))
        rng.shuffle(days)
        chosen: dict[int, tuple[_Unit, int]] = {}
        rounds = 0
        while len(chosen) < k and rounds < PER_DAY:
            rounds += 1
            for day in days:
                _, units, first = self._day(day)
                free = [(u, p) for u, p in zip(units, first, strict=True)
                        if u.first_role == "fact" and p < self.n and p not in chosen]  # fmt: skip
                if free:
                    unit, pos = rng.choice(free)
                    chosen[pos] = (unit, pos)
                    if len(chosen) == k:
                        break
        return [self._change(unit, pos, rng) for unit, pos in chosen.values()]

    @staticmethod
    def _change(unit: _Unit, pos: int, rng: random.Random) -> dict[str, Any]:
        old = _mid(pos)
        new = unit.change(rng) if unit.change is not None else None
        if new is None:
            return {"retract": [old]}
        return {
            "supersede": {"id": old, "with": {"id": f"{old}.v2", "kind": "fact", "text": new.text}}
        }


def generate(n: int, seed: int) -> TextWorkload:
    """The text workload of ``n`` memories for ``seed``: the same arguments give the same
    stream, and a larger ``n`` extends it."""
    return TextWorkload(n, seed)

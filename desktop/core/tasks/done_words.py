"""How one sentence of the user's says a task is done, or does not: the
words ``task_evidence`` reads the user's messages with.

A whitelist.  A sentence says a task is done only when it holds a
completion word ("done", "finished", "took care of", "✓"...) or a past
form of the task's own first verb ("watered" for "Water the plants",
derived by plain English rules and a small table of irregular verbs;
a verb whose past is its present, such as "put" or "read", has none), said
of the user or of someone doing it for them (not of "you": Reverie does not
water plants), and not as an adjective ("the watered plants").  Any cue of
something else anywhere in the sentence leaves it unsaid: a negation, a
question, a condition, a plan, a wish, an obligation, a thing under way or
done in part, a habit, an earlier time, or a joke taken back; a hedge
("maybe") makes it doubtful.  Cues
that are forms of the task's own verb ("cancelled" for "Cancel the gym")
are that verb, not a cue.

Other languages: only a completion word of the language that the host is
sure of counts ("erledigt"; "c'est fait", "terminé", "fini"; "hecho",
"terminado"; "fatto", "finito"), and then only with none of the
negations, questions, conditions or plans of those languages (nor of
English) in the sentence.
Anything else said in another language (a past tense, "gegossen") is no
evidence: its task stays open.

The text read is already folded (``task_evidence``): plain letters, one
apostrophe, lower case.  Everything here is a pass over the sentence's
words, so reading is linear in its length.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktop.core.base.content_words import stems, stems_of

Phrase = tuple[str, ...]

# The word lists are kept as paragraphs (``fmt: skip``): one word a line
# would make them many screens long.  Each entry is a phrase of words as
# ``words`` splits them ("didn't" is "did n't", "I'm" is "i 'm").
_CUES: dict[str, str] = {
    "negated": """
        not | n't | no | never | nothing | nobody | no one | noone | none | neither | nor |
        without | no longer | yet | forgot | forget | forgets | forgetting | forgotten |
        fail | failed | fails | failing | unable | nope | nah | naw | skip | skipped | skipping |
        postpone | postponed | postponing | put off | delay | delayed | missed | instead |
        rather than | barely | hardly | scarcely | almost | nearly | doubt | doubts | doubted |
        refuse | refused | stop | stopped | quit | ran out | lie | lied | lying | pretend |
        pretended | pretending | imagined | dreamt | dreamed | false | untrue | fake | wrong |
        undo | undid | undone | cancel | cancelled | canceled | unfinished | incomplete |
        except | other than | any more | anymore | far from | dreaming | i thought |
        was sure | or so i thought | ❌ | ✗ | ✘ | ❎ | ✖ | 🚫 | ⛔
    """,
    "question": """
        ? | ❓ | ❔ | ⁇ | ⁈ | ⁉ | ‽ | ؟ | ¿ | wonder | wondering | wondered | not sure |
        unsure | no idea | any idea | or not | anyone | anybody | whoever | whether | who |
        whom | whose | huh | eh
    """,
    "conditional": """
        if | unless | in case | as soon as | provided | providing | assuming | suppose |
        supposing | when | whenever | once | until | till | otherwise | or else | in order to |
        so that | as long as | what if | imagine | say
    """,
    "intent": """
        will | 'll | shall | going to | gonna | about to | plan | plans | planning | intend |
        intends | intending | let me | let 's | please | todo | to do | remind | reminding |
        reminder | remember | tomorrow | later | soon | someday | eventually | next | upcoming |
        schedule | scheduled | reschedule | move | get | gets | try | tries | trying | tried |
        attempt | attempted | attempting | 'd | would | in a bit | in a minute | in a while |
        on my list | ready to | prepare | preparing
    """,
    "wish": """
        wish | wished | wishing | hope | hoped | hoping | hopefully | if only | want | wants |
        wanted | wanna | would like | would love | could | could 've | might 've |
        might have
    """,
    "obligation": """
        must | have to | has to | had to | got to | gotta | need | needs | needed | needing |
        should | ought | supposed | meant | required | require | requires | expected | due |
        overdue | is to | are to | am to
    """,
    "progress": """
        still | currently | in progress | working on | on it | halfway | half | partly |
        partially | mostly | started | starting | start | starts | begun | began | begin |
        beginning | in the middle | so far | underway | under way | ongoing | not quite |
        out of | some of | most of | part of | a few | few of | one of | % | in part
    """,
    "habit": """
        usually | always | often | sometimes | normally | generally | typically | daily |
        weekly | monthly | used to | tend to | every day | every week | every month |
        every year | every morning | every evening | every night | every time | each day |
        each week | each month | each morning | each time
    """,
    "earlier": """
        years ago | year ago | months ago | month ago | weeks ago | last year | last month |
        back in | back then
    """,
    "retracted": """
        just kidding | kidding | jk | j / k | joking | joke | joked | as if | yeah right |
        not really | scratch that | never mind | nevermind | nvm | psych | sike | april fool |
        april fools | in my dreams | take that back | take it back | i lied | actually no |
        actually , no | wait no | wait , no | no wait | haha no | lol no | sarcasm | / s |
        in my dream | in a dream | 🙄
    """,
    "hedged": """
        maybe | perhaps | probably | possibly | might | may | i think | i guess | i believe |
        i suppose | pretty sure | fairly sure | i reckon | reckon | apparently | seemingly |
        seems | seem | kind of | sort of | kinda | sorta | likely | think so | if i recall |
        supposedly | allegedly | they say | says | said | claims | claimed |
        told me | rumour | rumor
    """,
}  # fmt: skip
"""Each kind of cue and the phrases it is made of."""

_DONE = """
    done | finished | completed | accomplished | did it | did that | did this | took care |
    taken care | dealt with | sorted out | got it done | got that done | ticked off |
    checked off | crossed off | is complete | are complete | 's complete | now complete |
    ✓ | ✔ | ✅ | ☑ | 🗸 | [ x ]
"""  # fmt: skip
"""Completion words (English): each says a thing is done, whatever the task."""

_OTHER_LANGUAGES: dict[str, tuple[str, str]] = {
    # (completion words, the words that mean no, a question, an if or a plan)
    "de": (
        "erledigt",
        """nicht | nichts | kein | keine | keinen | keiner | nie | niemals | noch | ob | wenn |
        falls | sobald | morgen | spater | bald | werde | wirst | wird | werden | muss | musst |
        mussen | soll | sollte | sollen | mochte | mochten | will | willst | wollen | bitte |
        fast | halb | vielleicht | wahrscheinlich | erinnere | erinnern""",
    ),
    "fr": (
        """c ' est fait | est fait | deja fait | ai fait | a fait | avons fait | termine |
        terminee | termines | terminees | fini | finie | finis | finies""",
        """ne | n | pas | jamais | rien | aucun | aucune | plus | encore | si | quand | lorsque |
        demain | bientot | tard | vais | vas | va | allons | allez | vont | dois | doit | devons |
        faut | veux | veut | voudrais | peut | presque | rappelle | rappeler | est - ce""",
    ),
    "es": (
        "hecho | terminado | terminada | terminados | terminadas | termine",
        """no | nunca | jamas | todavia | aun | si | cuando | manana | pronto | luego | despues |
        voy | vas | va | vamos | van | tengo | tienes | tiene | debo | debes | debe | quiero |
        quieres | quiere | casi | quizas | quiza | tal vez | ¿""",
    ),
    "it": (
        "fatto | finito | finita | completato | completata",
        """non | mai | ancora | se | quando | domani | dopo | devo | deve | dobbiamo | voglio |
        vuole | forse | quasi | magari""",
    ),
}  # fmt: skip
"""Per language, the completion words the host is sure of and what undoes
them there; the text is folded, so without accents ("terminé" is "termine")."""

_IRREGULAR = """
    be was were been | become became | begin began begun | bring brought | build built |
    buy bought | catch caught | choose chose chosen | come came | dig dug | do did done |
    draw drew drawn | drink drank drunk | drive drove driven | eat ate eaten | fall fell fallen |
    feed fed | feel felt | fight fought | find found | fly flew flown | forget forgot forgotten |
    forgive forgave forgiven | freeze froze frozen | get got gotten | give gave given |
    go went gone | grow grew grown | hang hung | have had | hear heard | hide hid hidden |
    hold held | keep kept | know knew known | lay laid | lead led | leave left | lend lent |
    light lit | lose lost | make made | mean meant | meet met | mow mowed mown | pay paid |
    ride rode ridden | ring rang rung | rise rose risen | run ran | say said | see saw seen |
    seek sought | sell sold | send sent | sew sewed sewn | shake shook shaken | shoot shot |
    show showed shown | sing sang sung | sit sat | sleep slept | slide slid | sow sowed sown |
    speak spoke spoken | spend spent | spin spun | stand stood | steal stole stolen |
    stick stuck | strike struck | sweep swept | swim swam swum | swing swung | take took taken |
    teach taught | tear tore torn | tell told | think thought | throw threw thrown |
    understand understood | wake woke woken | wear wore worn | win won | wind wound |
    withdraw withdrew withdrawn | write wrote written
"""  # fmt: skip
"""Irregular verbs: the present, then its past forms."""
_SAME_IN_THE_PAST = frozenset(
    str.split("put cut set let hit shut quit read spread cost hurt upset bet burst cast split")
)
"""Verbs whose past is their present: "Read the report" is no news, so these have none."""
_TASK_OPENERS: tuple[Phrase, ...] = (
    ("please",), ("remember", "to"), ("do", "n't", "forget", "to"), ("remind", "me", "to"),
    ("need", "to"), ("have", "to"), ("must",), ("to",), ("i", "need", "to"), ("i", "must"),
)  # fmt: skip
"""Words a task may open with before its verb ("Remember to call Ana")."""

_BE = frozenset(str.split("am 'm is 's are 're was were be been being"))
_SKIPPED = frozenset(
    str.split("""just finally already also actually all both even now today yesterday again
    successfully completely fully totally really indeed properly have has had 've 's 'd
    am 'm is are 're was were been got""")
)
"""Words between a subject and its verb ("I have finally watered")."""
_DETERMINERS = frozenset(
    str.split("""the a an this that these those my your our his her their its some any no
    el la los las un una le les der die das den dem ein eine il lo""")
)
"""Before a past form these make it an adjective ("the watered plants")."""
_NOT_A_SUBJECT = frozenset(str.split("to be being well"))
"""Before a done word these make it no news ("to be filed", "well done")."""
_SECOND_PERSON = frozenset(str.split("you u ya yall thou"))
"""Reverie (or whoever the user talks to) does not do the user's tasks."""
_THEIR_OWN = frozenset(str.split("her his their hers theirs"))
"""After a done word said of someone else, the thing done is their own:
"My wife renewed her passport" does not renew the user's."""
_FIRST_PERSON = frozenset(str.split("i we"))
_ASKING_VERBS = frozenset(
    str.split("is are am was were do does did have has had can could will would")
)
_ASKING_VERBS |= frozenset(str.split("shall should may might must"))
_ASKED_ABOUT = frozenset(
    str.split("""i you we they he she it anyone anybody someone somebody everyone everybody one
    u the my our your his her their this that these those a an all any""")
)
"""After an asking verb at the start of a clause, a question ("did I...", "have the...")."""
_WH = frozenset(str.split("who what which where why how whom whose"))
_OPENERS = frozenset(str.split("so and but or wait well ok okay oh hmm um uh also then now"))
"""Words a clause may open with before a question ("So did I...")."""
_CLAUSE_BREAKS = frozenset(str.split(', ; : ( ) [ ] — "'))
_UNDER_WAY = frozenset(
    str.split("""doing working finishing completing getting going trying handling dealing sorting
    taking making starting preparing wrapping tackling""")
)
"""After a form of "be", these (and the task's own verb in -ing) say it is
under way ("I'm doing the taxes"); other -ing words may be adjectives ("it
was boring")."""
_BACK = frozenset(str.split("i we me my right really true did have has yet it that done"))
"""Words by which a short reply points back ("No I didn't", "Did I?", "Not yet")."""
_FUNCTION = frozenset(
    str.split("""i me my mine myself you your we us our they them their he him his she her it its
    this that these those there here someone somebody something anything everything anyone
    everyone am is are was were be been being have has had do does did can could will would
    shall should may might must get got oh ok okay yes yeah yep yup sure well so wait sorry
    oops hmm um uh lol haha actually really right just also too then anyway though still yet
    again already now today tonight tomorrow yesterday later soon morning evening afternoon
    week time thing things way all both any some more most very quite much many lot bit good
    great fine thanks thank please hey hello done finished completed""")
)
"""Words that do not say what a sentence is about."""

_TOKEN = re.compile(r"\w+(?=n't\b)|n't\b|'(?:m|re|ve|ll|d|s)\b|\w+|[^\w\s-]")
_RESPELT = {
    "im": ("i", "'m"), "ive": ("i", "'ve"), "ill": ("i", "'ll"), "id": ("i", "'d"),
    "youre": ("you", "'re"), "youve": ("you", "'ve"), "youll": ("you", "'ll"),
    "cannot": ("can", "not"), "lets": ("let", "'s"), "dont": ("do", "n't"),
    "didnt": ("did", "n't"), "doesnt": ("does", "n't"), "havent": ("have", "n't"),
    "hasnt": ("has", "n't"), "hadnt": ("had", "n't"), "cant": ("ca", "n't"),
    "wont": ("wo", "n't"), "isnt": ("is", "n't"), "arent": ("are", "n't"),
    "wasnt": ("was", "n't"), "werent": ("were", "n't"), "couldnt": ("could", "n't"),
    "shouldnt": ("should", "n't"), "wouldnt": ("would", "n't"), "mustnt": ("must", "n't"),
    "neednt": ("need", "n't"), "aint": ("ai", "n't"),
}  # fmt: skip
"""Contractions typed without their apostrophe, as ``words`` splits them with one."""
_RESPELLINGS = frozenset(_RESPELT)


def words(text: str) -> list[str]:
    """*text* (folded) as the words and marks the lists are made of."""
    found: list[str] = _TOKEN.findall(text)
    if _RESPELLINGS.isdisjoint(found):
        return found
    return [part for token in found for part in _RESPELT.get(token, (token,))]


def _phrases(listed: str) -> frozenset[Phrase]:
    return frozenset(tuple(words(p.strip())) for p in listed.split("|") if p.strip())


class _Lexicon:
    """Phrases, found by their first words: each place in a sentence costs
    a lookup or two, so a search is linear in its words."""

    def __init__(self, phrases: Iterable[tuple[Phrase, str]]) -> None:
        self._single: dict[str, str] = {}
        self._longer: dict[tuple[str, str], list[tuple[Phrase, str]]] = {}
        for phrase, kind in phrases:
            if len(phrase) == 1:
                self._single[phrase[0]] = kind
            else:
                self._longer.setdefault((phrase[0], phrase[1]), []).append((phrase, kind))
        for listed in self._longer.values():
            listed.sort(key=lambda entry: -len(entry[0]))
        self._openers = frozenset(self._single) | {first for first, _ in self._longer}

    def found(self, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
        """Each phrase in *tokens* (the longest where two start at one
        place, none inside another): where it starts, its length, its kind."""
        if self._openers.isdisjoint(tokens):
            return []
        hits: list[tuple[int, int, str]] = []
        after = 0
        for index in [i for i, token in enumerate(tokens) if token in self._openers]:
            if index < after:
                continue
            hit = self._longer_at(tokens, index)
            if hit is None and tokens[index] in self._single:
                hit = (1, self._single[tokens[index]])
            if hit is not None:
                hits.append((index, *hit))
                after = index + hit[0]
        return hits

    def _longer_at(self, tokens: Sequence[str], index: int) -> tuple[int, str] | None:
        if index + 1 >= len(tokens):
            return None
        for phrase, kind in self._longer.get((tokens[index], tokens[index + 1]), ()):
            if tuple(tokens[index : index + len(phrase)]) == phrase:
                return len(phrase), kind
        return None

    def single_words(self) -> frozenset[str]:
        """The phrases of one word."""
        return frozenset(self._single)


_CUE_LEXICON = _Lexicon((p, kind) for kind, listed in _CUES.items() for p in _phrases(listed))
_DONE_LEXICON = _Lexicon(
    [(p, "en") for p in _phrases(_DONE)]
    + [(p, lang) for lang, (done, _) in _OTHER_LANGUAGES.items() for p in _phrases(done)]
)
_UNDOING = _Lexicon(
    (p, "negated") for _, against in _OTHER_LANGUAGES.values() for p in _phrases(against)
)
"""What undoes a completion word in any of the other languages: one word
may be two languages' ("termine"), so each is held to all of them."""
_QUIET = _FUNCTION | _CUE_LEXICON.single_words() | _DONE_LEXICON.single_words()
"""Words no sentence is about ("believe" in "I can't believe it" is content)."""
_PAST = {
    forms.split()[0]: tuple(forms.split()[1:]) for forms in _IRREGULAR.split("|") if forms.strip()
}


@dataclass(frozen=True)
class TaskWords:
    """What a task's text gives the reading: its content words and its verb."""

    stems: frozenset[str]
    done_forms: frozenset[str]
    """Past forms of its first verb ("watered")."""
    own_forms: frozenset[str]
    """Every form of that verb, never read as a cue ("cancelled" for "Cancel ...")."""

    @classmethod
    def of(cls, folded_task: str) -> TaskWords:
        verb = _first_verb(words(folded_task))
        past = _past_forms(verb) if verb else frozenset()
        own = past | ({verb, verb + "s", _ing(verb)} if verb else set())
        return cls(stems(folded_task), past, frozenset(own))


def _first_verb(tokens: list[str]) -> str:
    changed = True
    while changed and tokens:
        changed = False
        for opener in _TASK_OPENERS:
            if tuple(tokens[: len(opener)]) == opener:
                tokens, changed = tokens[len(opener) :], True
    return tokens[0] if tokens and tokens[0].isalpha() and tokens[0].isascii() else ""


def _past_forms(verb: str) -> frozenset[str]:
    """The past tense and participle of *verb* by plain English rules (both
    spellings where a consonant may be doubled: "travelled", "traveled")."""
    if verb in _SAME_IN_THE_PAST or len(verb) < 2:
        return frozenset()
    if verb in _PAST:
        return frozenset(_PAST[verb])
    vowels = "aeiou"
    if verb.endswith("e"):
        return frozenset({verb + "d"})
    if verb.endswith("y") and verb[-2] not in vowels:
        return frozenset({verb[:-1] + "ied"})
    if verb.endswith("c"):
        return frozenset({verb + "ked", verb + "ed"})
    forms = {verb + "ed"}
    if (
        len(verb) >= 3
        and verb[-1] not in vowels + "wxy"
        and verb[-2] in vowels
        and verb[-3] not in vowels
    ):
        forms.add(verb + verb[-1] + "ed")  # stop, stopped
    return frozenset(forms)


def _ing(verb: str) -> str:
    return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"


@dataclass(frozen=True)
class Sentence:
    """What one sentence says, as ``task_evidence`` weighs it."""

    cue: str
    """The kind of cue it says something else by (the first of ``_FIRST_SAID``
    it has: a key of ``_CUES`` but "hedged"); "" if none."""
    hedged: bool
    positive: bool
    """It says something is done, by the user or for them."""
    names_task: bool
    """It shares a content word with the task."""
    elliptical: bool
    """It has no content word of its own ("No, I haven't.", "Did I?")."""
    points_back: bool
    """It has a word by which a short reply points back at what was said."""


def read_sentence(text: str, task: TaskWords) -> Sentence:
    """*text*, one folded sentence, read for *task*."""
    tokens = words(text)
    present = set(tokens)
    cues = {
        kind for index, _, kind in _CUE_LEXICON.found(tokens) if tokens[index] not in task.own_forms
    }
    done_at = _done_words(tokens, task)
    if any(language != "en" for _, language in done_at) and _UNDOING.found(tokens):
        cues.add("negated")
    if _asks(tokens, present):
        cues.add("question")
    if _under_way(tokens, present, task.own_forms) or _a_share(tokens, present):
        cues.add("progress")
    content = {w for w in present - _QUIET if len(w) >= 3 and w.isalpha()}
    content |= present & task.own_forms
    return Sentence(
        cue=next((kind for kind in _FIRST_SAID if kind in cues), ""),
        hedged="hedged" in cues,
        positive=any(_said_by_user(tokens, index) for index, _ in done_at),
        names_task=not task.stems.isdisjoint(stems_of(content)),
        elliptical=not content,
        points_back=not _BACK.isdisjoint(present),
    )


_FIRST_SAID = (
    "retracted", "negated", "question", "conditional", "wish", "obligation", "intent",
    "progress", "habit", "earlier",
)  # fmt: skip
"""Which kind a sentence with several cues is refused for."""


def _done_words(tokens: Sequence[str], task: TaskWords) -> list[tuple[int, str]]:
    """Where a completion word or a past form of the task's verb stands, and its language."""
    found = [(index, language) for index, _, language in _DONE_LEXICON.found(tokens)]
    if not task.done_forms.isdisjoint(tokens):
        found += [(i, "en") for i, token in enumerate(tokens) if token in task.done_forms]
    return found


def _said_by_user(tokens: Sequence[str], index: int) -> bool:
    """Whether the done word at *index* is said of the user or of someone
    for them: the nearest word before it in its clause, past "have" and
    "just", is no determiner ("the watered plants"), "to" or "be", nor
    "you"; and what someone else did was not their own ("My wife renewed
    her passport")."""
    at = index - 1
    while at >= 0 and tokens[at] in _SKIPPED:
        at -= 1
    if at < 0 or tokens[at] in _CLAUSE_BREAKS:
        return True  # "Watered the plants.", "Done: ..."
    word = tokens[at]
    if word in _DETERMINERS | _NOT_A_SUBJECT | _SECOND_PERSON:
        return False
    clause = itertools.takewhile(lambda token: token not in _CLAUSE_BREAKS, tokens[index + 1 :])
    return word in _FIRST_PERSON or _THEIR_OWN.isdisjoint(clause)


def _asks(tokens: Sequence[str], present: set[str]) -> bool:
    """A clause opening as a question, its question mark left out ("did I
    call the dentist", "wait, have the plants been watered"), or ending in
    ", right"."""
    if _ASKING_VERBS.isdisjoint(present) and _WH.isdisjoint(present) and "right" not in present:
        return False
    starts = [0] + [i + 1 for i, t in enumerate(tokens) if t in _CLAUSE_BREAKS]
    for start in starts:
        at = start
        while at < len(tokens) and tokens[at] in _OPENERS:
            at += 1
        if at < len(tokens) and (tokens[at] in _WH or _asking(tokens, at)):
            return True
    said = [t for t in tokens if t.isalnum() or t in _CLAUSE_BREAKS]
    return said[-2:] == [",", "right"]  # "I watered them, right"


def _asking(tokens: Sequence[str], at: int) -> bool:
    """An asking verb at *at* followed by what it asks about; "did the
    dishes" and a bare "did it" are news, not questions."""
    if tokens[at] not in _ASKING_VERBS or at + 1 >= len(tokens):
        return False
    after = tokens[at + 1]
    if after not in _ASKED_ABOUT:
        return False
    if tokens[at] in ("did", "had") and after in _DETERMINERS - {"this", "that"}:
        return False
    if tokens[at] == "did" and after in ("it", "this", "that"):
        return _more_said(tokens, at + 2)  # "did it rain" asks, "did it already!" says
    return True


def _more_said(tokens: Sequence[str], at: int) -> bool:
    """Whether a word other than "just", "already" and the like follows
    *at* in its clause."""
    while at < len(tokens) and tokens[at] not in _CLAUSE_BREAKS:
        if tokens[at].isalnum() and tokens[at] not in _SKIPPED:
            return True
        at += 1
    return False


def _a_share(tokens: Sequence[str], present: set[str]) -> bool:
    """A number out of another ("3/5", "2 of 4"): part of it is done."""
    if "/" not in present and "of" not in present:
        return False
    return any(
        tokens[i] in ("/", "of") and tokens[i - 1].isdigit() and tokens[i + 1].isdigit()
        for i in range(1, len(tokens) - 1)
    )


def _under_way(tokens: Sequence[str], present: set[str], own: frozenset[str]) -> bool:
    """A form of "be" followed, perhaps past one word, by the task's verb
    or a verb of doing in -ing ("I am watering", "I'm still doing")."""
    if _BE.isdisjoint(present) or (_UNDER_WAY.isdisjoint(present) and own.isdisjoint(present)):
        return False
    for index, token in enumerate(tokens):
        doing = token.endswith("ing") and (token in _UNDER_WAY or token in own)
        if doing and _BE.intersection(tokens[max(0, index - 2) : index]):
            return True
    return False

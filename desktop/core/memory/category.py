"""A category for a memory the user keeps by hand (``/remember``), guessed
at once, without asking the chat model (it may be missing, and ``/remember``
answers at once).

The harvest files what it learns under ``MemoryCategory``; a memory typed
with ``/remember`` is filed the same way, so the browser's category filter
finds it beside the rest.  Two ways to guess, measured on phrasings that
neither was built from (tests/unit/core/memory/test_memory_category.py):

- By meaning: the category whose shipped examples
  (``data/memory_category_examples.txt``) the text is closest to, by the
  embedding model.  It knows words no list has ("pacemaker", "laid off",
  "couch to 5k"): 72% of the held-out phrasings with all-MiniLM-L6-v2.
- By cues: weighted stems and short phrases per category ("my sister",
  "allergic", "next week", "I work as", "I prefer"), scored, best wins.
  Precise when a cue is there, blind otherwise: 58% of the same phrasings.

So ``CategoryGuesser`` lets decisive cues ("I'm allergic to…", a cue naming
the subject, or two cues) decide, and meaning decide the rest (74%); with no
embedder, or no vector for the text, it falls back to the cues alone
(``guess_category``).  The examples are embedded once per embedding model,
on the first guess that needs them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal, get_args

import numpy as np

from desktop.core.base import paths
from desktop.core.memory.embedding import Vectors

MemoryCategory = Literal["personal", "people", "preferences", "work", "health", "plans", "other"]
"""The categories memories are filed under (the harvest's schema lists them)."""
CATEGORIES: tuple[MemoryCategory, ...] = get_args(MemoryCategory)
"""Every category, in the order the harvest's schema lists them."""
EXAMPLES_FILE = "memory_category_examples.txt"
DECISIVE = 6.0
"""A cue score from which the cues decide even when meaning could."""

_Cues = tuple[tuple[re.Pattern[str], float], ...]

_KIN = (
    r"(?:sister|brother|sibling|mum|mom|mother|dad|father|parent|son|daughter|kid|child|"
    r"children|baby|husband|wife|partner|spouse|boyfriend|girlfriend|fianc[ée]e?|friend|"
    r"neighbou?r|roommate|flatmate|housemate|grand\w+|aunt|uncle|cousin|niece|nephew|"
    r"\w+-in-law|stepmother|stepfather|twin|family|dog|cat|puppy|kitten|pet|horse|"
    r"rabbit|hamster|parrot)"
)
_WHOSE = r"(?:my|our|their|his|her)"
_JOB = (
    r"(?:engineer|developer|programmer|teacher|tutor|lecturer|professor|nurse|doctor|"
    r"surgeon|lawyer|solicitor|attorney|judge|accountant|banker|designer|analyst|manager|"
    r"chef|cook|driver|writer|author|journalist|reporter|consultant|architect|"
    r"electrician|plumber|carpenter|builder|mechanic|technician|pharmacist|paramedic|"
    r"midwife|dentist|vet|veterinarian|scientist|researcher|student|intern|apprentice|"
    r"freelancer|cleaner|janitor|cashier|receptionist|secretary|assistant|pilot|farmer|"
    r"baker|butcher|barista|bartender|waiter|waitress|soldier|officer|police\w*|"
    r"firefighter|clerk|editor|translator|librarian|photographer|artist|illustrator|"
    r"musician|actor|actress|dancer|therapist|counsel+or|social worker|carer|caregiver|"
    r"nanny|salesperson|sales rep|entrepreneur|founder|owner|ceo|cto|director|"
    r"administrator|coach|trainer|instructor|postman|courier|miner|fisherman|gardener|"
    r"landscaper|hairdresser|barber|tailor|welder|sailor)"
)
_ROLE = (
    r"(?!(?:vegetarian|pescatarian|smoker|drinker|runner|beginner|believer|member|reader|"
    r"lover|gamer|sleeper|eater|parent|introvert|extrovert|fan|night|morning)\b)"
    r"\w+(?:er|or|ist|ian|ant|ent)"
)
"""A word that may name what someone does for a living (after "I am a")."""
_BEING = r"(?:i am|i'm|i was|used to be|become|became|work as|works as|worked as)"
_AT = r"(?:at|for|in|as|on|from)"
_WHEN = (
    r"(?:tomorrow|tonight|soon|someday|one day|next (?:week|month|year|spring|summer|"
    r"autumn|fall|winter|weekend|time|\w+day)|this (?:weekend|summer|autumn|fall|winter|"
    r"spring|christmas|easter)|in (?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|spring|summer|the autumn|autumn|the fall|"
    r"winter|\d+ (?:days|weeks|months|years))|at (?:christmas|easter|new year)|"
    r"for (?:christmas|easter|new year)|on (?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|the \d+(?:st|nd|rd|th)))\b"
)


def _cues(*pairs: tuple[str, float]) -> _Cues:
    return tuple((re.compile(pattern), weight) for pattern, weight in pairs)


_CUES: dict[MemoryCategory, _Cues] = {
    "people": _cues(
        (rf"\b{_WHOSE} (?:\w+ )?{_KIN}s?\b", 4),
        (rf"\b(?:a|an|two|three|four|five|\d+) (?:[\w-]+ ){{0,2}}{_KIN}s?\b", 2),
        (r"\b(?:married to|dating|engaged to)\b", 2),
    ),
    "health": _cues(
        (r"\b(?:allerg|intoleran|diabet|asthma|migraine|headache|insomnia|coeliac|celiac)", 3),
        (r"\b(?:medic(?:ation|ine)|pills?|prescri|insulin|inhaler|\d+ ?mg)\b", 3),
        (r"\b(?:my|a|the|see a) (?:doctor|gp|therapist|psychiatrist|physio\w*)\b", 2),
        (r"\b(?:therapy|anxiety|depress\w*|adhd|autis\w*|ocd|ptsd|bipolar|panic attacks?)\b", 3),
        (r"\b(?:surgery|operation|injur\w*|broke my|sprained|fractur\w*|hospital\w*)\b", 2),
        (r"\b(?:pain|hurts?|aches?|sore|sick|illness|disease|cancer|symptoms?|chronic)\b", 2),
        (r"\b(?:sleep\w*|blood pressure|cholesterol|heart|pregnan\w*|weight|diet|calories)\b", 2),
        (r"\b(?:gym|workout|exercis\w*|run \d+ ?k|fitness|yoga|sober|smok\w*)\b", 2),
        (r"\b(?:alcohol|drinking)\b", 2),
        (r"\b(?:vegan|vegetarian|gluten|dairy|lactose|for health reasons|healthy)\b", 1),
    ),
    "work": _cues(
        (rf"\b{_BEING} (?:a|an) (?:[\w-]+ ){{0,2}}{_JOB}s?\b", 4),
        (rf"\b{_BEING} (?:a|an) (?:[\w-]+ ){{0,2}}{_ROLE}\b", 2),
        (rf"\b{_JOB}s?\b", 1),
        (rf"\b{_JOB}s? (?:at|for|in|with|on)\b", 2),
        (rf"\b(?:works?|working|worked)(?: \w+ly| full-time| part-time)? {_AT}\b", 3),
        (
            r"\b(?:teach(?:es|ing)?|taught|for a living|retired|my (?:students|patients|pupils))\b",
            3,
        ),
        (r"\b(?:job|jobs|career|employ\w*|unemployed|profession\w*|occupation)\b", 3),
        (r"\b(?:boss|manager|colleagues?|co-?workers?|clients?|customers?|team)\b", 2),
        (r"\b(?:office|shift|meetings?|standups?|project|deadline|report|presentation)\b", 2),
        (r"\b(?:company|startup|business|firm|employer|salary|promot\w*|hired|fired)\b", 2),
        (r"\b(?:freelanc\w*|self-employed|contract|interview|resign\w*|commute\w*)\b", 2),
        (r"\b(?:thesis|phd|dissertation|research|lab|runs? a (?:small )?\w+)\b", 2),
    ),
    "plans": _cues(
        (r"\b(?:going to|gonna|plan(?:s|ning|ned)? (?:to|on)|intend\w*|aim(?:s|ing)? to)\b", 3),
        (r"\b(?:i will|i'll|we will|we'll|i shall|will be|i'm getting|we're getting)\b", 3),
        (r"\b(?:(?:would|'d) (?:like|love) to|want(?:s|ed)? to|hop(?:e|es|ing) to)\b", 3),
        (r"\b(?:goal|resolution|dream is|saving up|thinking (?:of|about)|considering)\b", 3),
        (rf"\b{_WHEN}", 2),
        (r"\b(?:appointment|booked|booking|trip|holiday|vacation|exam|upcoming|coming up)\b", 2),
        (r"\b(?:visit(?:ing)?|travel(?:l?ing)?|flying to|moving to)\b", 1),
        (r"\b(?:start(?:ing|s)?|learn(?:ing)?)\b", 1),
    ),
    "preferences": _cues(
        (r"(?<!would )(?<!'d )\b(?:likes?|loves?|enjoys?|adores?|prefers?|preferred)\b", 3),
        (r"\b(?:favou?rite|fan of|into|rather|hates?|dislikes?|detests?|can't stand)\b", 3),
        (r"\b(?:not a fan|can't bear|weakness|don't (?:like|enjoy|care for)|fond of)\b", 3),
        (r"\b(?:please|call me|don't (?:use|say|call)|answers?|repl(?:y|ies)|respond)\b", 2),
        (r"\b(?:bullet points|short|brief|emojis?|formal|casual|tone)\b", 1),
        (r"\b(?:always (?:choose|pick|order|take)|never (?:eat|drink|watch))\b", 2),
    ),
    "personal": _cues(
        (r"\b(?:my name|name is|i'm called|i am called|name's|born|birthday|years old)\b", 3),
        (r"\b(?:i'm \d+|i am \d+|aged \d+|based in|located in)\b", 3),
        (r"\b(?:grew up|raised|originally from|i'm from|i am from|nationality)\b", 3),
        (r"\b(?:live[sd]? (?:in|at|near|alone|with|on)|moved (?:to|house|here)|hometown)\b", 3),
        (r"\b(?:speak|native|citizen|religio\w*|catholic|muslim|jewish|hindu|buddhist)\b", 2),
        (r"\b(?:studied|graduated|degree|diploma|university|college|school)\b", 2),
        (
            r"\b(?:hobby|hobbies|collect\w*|play (?:the )?\w+|drive an?|own an?|my (?:car|bike))\b",
            2,
        ),
        (r"\b(?:flat|apartment|house|home|left-handed|right-handed|introvert|extrovert)\b", 1),
        (r"\b(?:single|divorced|widowed|night owl|morning person)\b", 2),
    ),
}
_THING = re.compile(r"^(?:the|a|an|it|its|it's|there|this|that|these|those)\b")
_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|our|us|you|your)\b")
_SURE = 3.0
"""A score from which a sentence about a thing, naming no one, still belongs
under a category: one weak cue ("the bins go out on Monday") is not a plan."""
_SELF = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|me|we|we're|our)\b")
_THIRD_PERSON = (
    (re.compile(r"\bthe user's\b"), "my"),
    (re.compile(r"\bthe user (?:is|was)\b"), "i am"),
    (re.compile(r"\bthe user (?:has)\b"), "i have"),
    (re.compile(r"\bthe user\b"), "i"),
)
_LEAD_IN = re.compile(r"^(?:remember(?: that)?|note(?: that)?|fyi|that)[:,]?\s+")
_SUBJECT_WORDS = 3
"""A cue starting in the first words names what the text is about."""


def guess_category(text: str) -> MemoryCategory:
    """The category *text* most likely belongs under, by its cues alone;
    "other" when nothing says."""
    return _by_cues(text)[0]


class CategoryGuesser:
    """Guesses by cues where they are decisive, by meaning elsewhere.

    *embed* turns texts into unit vectors (None: no embedder now); *examples*
    are the example memories of each category (default: the shipped file).
    Thread-safe: the chat and the harvest may guess at once.
    """

    def __init__(
        self,
        embed: Callable[[Sequence[str]], Vectors | None],
        examples: Mapping[MemoryCategory, Sequence[str]] | None = None,
    ) -> None:
        self._embed = embed
        self._examples = examples
        self._centroids: dict[str | None, Vectors] = {}
        self._lock = threading.Lock()

    def guess(
        self, text: str, vector: Vectors | None = None, model: str | None = None
    ) -> MemoryCategory:
        """The category of *text*, whose unit *vector* (by embedding *model*),
        if given, lets meaning decide where the cues are not decisive."""
        by_cues, score = _by_cues(text)
        if vector is None or score >= DECISIVE:
            return by_cues
        centroids = self._centroids_for(model, vector.shape[-1])
        if centroids is None:
            return by_cues
        return CATEGORIES[int(np.argmax(centroids @ vector.reshape(-1)))]

    def _centroids_for(self, model: str | None, dimension: int) -> Vectors | None:
        """One unit vector per category, the mean of its examples' (None: no embedder)."""
        with self._lock:
            known = self._centroids.get(model)
            if known is not None and known.shape[1] == dimension:
                return known
            examples = self._examples = self._examples or load_examples()
            texts = [text for category in CATEGORIES for text in examples[category]]
            vectors = self._embed(texts)
            if vectors is None or vectors.shape[1] != dimension:
                return None
            ends = np.cumsum([len(examples[category]) for category in CATEGORIES])
            means = np.stack([part.mean(axis=0) for part in np.split(vectors, ends[:-1])])
            centroids: Vectors = means / np.linalg.norm(means, axis=1, keepdims=True)
            self._centroids[model] = centroids
            return centroids


def load_examples(path: Path | None = None) -> dict[MemoryCategory, list[str]]:
    """The example memories of each category, from *path* (default: the shipped file)."""
    path = path or paths.data_dir() / EXAMPLES_FILE
    examples: dict[MemoryCategory, list[str]] = {category: [] for category in CATEGORIES}
    current: list[str] | None = None
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1]
            if name not in examples:
                raise ValueError(f"{path}:{number}: no category called {name!r}")
            current = examples[name]
        elif current is None:
            raise ValueError(f"{path}:{number}: an example before any [category]")
        else:
            current.append(line)
    if empty := [category for category, texts in examples.items() if not texts]:
        raise ValueError(f"{path}: no examples of {', '.join(empty)}")
    return examples


def _by_cues(text: str) -> tuple[MemoryCategory, float]:
    """The best category by cues, and its score (0: no cue, so a fallback)."""
    said = _normalised(text)
    scores = {category: _score(said, cues) for category, cues in _CUES.items()}
    best = max(CATEGORIES, key=lambda category: scores.get(category, 0.0))
    score = scores.get(best, 0.0)
    about_a_thing = _THING.match(said) is not None and _PERSON.search(said) is None
    if score >= (_SURE if about_a_thing else 0.5):
        return best, score
    return ("personal" if _SELF.match(said) else "other"), 0.0


def _normalised(text: str) -> str:
    said = " ".join(text.casefold().replace("\u2019", "'").split())
    said = _LEAD_IN.sub("", said)
    for pattern, first_person in _THIRD_PERSON:
        said = pattern.sub(first_person, said)
    return said


def _score(text: str, cues: _Cues) -> float:
    subject_end = sum(len(word) + 1 for word in text.split(" ")[:_SUBJECT_WORDS])
    score = 0.0
    for pattern, weight in cues:
        found = pattern.search(text)
        if found is not None:
            score += weight * (2 if found.start() < subject_end else 1)
    return score

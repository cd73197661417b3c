"""Word lists for turning chat text into search terms.

STOPWORDS carry no topic: dropped from every query. RECALL_META words talk *about*
remembering ("that thing you told me once") rather than about a topic: dropped too, since
every past message would otherwise match "told". PHATIC words are social noise ("thanks",
"haha", "ok"): automatic recall drops them (a "thanks!" must never pull up old chats
that also said thanks), explicit search keeps them because someone typed them on purpose.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words("""
a about above after again against all almost also am an and any anyone anything are aren
around as at be because been before being below between both but by can cannot could
couldn d did didn do does doesn doing don done down during each either else etc ever every
few for from further get gets getting got had hadn has hasn have haven having he her here
hers herself him himself his how however i if im in into is isn it its itself ive just
let ll m may maybe me might mine more most much must mustn my myself need needs neither no
nor not now o of off on once one only or other others our ours ourselves out over own
per please quite rather re really s same shall shan she should shouldn since so some
someone somehow something still such t than that thats the their theirs them themselves
then there these they theyre this those though through thus to too toward towards u under
until up upon us ve very via was wasn way we were weren what whatever whats when where
whether which while who whom whose why will with within without won would wouldn y yet you
youd youll your youre yours yourself yourselves
""")

RECALL_META = _words("""
remember remembered recall recalled told tell telling mention mentioned mentions said say
saying thing things stuff somewhere sometime earlier previously ago exactly
""")

# Words that only say a note or a message was made ("what did I write last week", "what
# did we talk about yesterday"): dropped from a query that names a time
# (shared/time/expressions.py), where the date says all they say. Elsewhere they may be a
# topic ("writing tips").
TIME_META = _words("""
write wrote written writing note noted notes jot jotted log logged put talk talked talking
discuss discussed discussing chat chatted chatting ask asked asking happen happened
happening
""")

PHATIC = _words("""
hi hello hey hiya howdy yo greetings thanks thank thx ty cheers haha hahaha lol lmao rofl
hehe ok okay k kk cool nice great good awesome sounds sure yeah yes yep yup nope nah
bye goodbye morning evening afternoon night welcome sorry wow hmm hm oh ah uh um alright
perfect excellent gotcha indeed
""")

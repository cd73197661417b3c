"""A long note for section recall (README, "How recall works"): about 17 KB in 40 headed
sections, the one fact the owner asks about in section 37. Every section is about the same
house, so the note as a whole
matches many queries weakly and only its 37th section matches the question well."""

from __future__ import annotations

TITLE = "House manual"
PATH = "Home/House manual.md"
FACT_HEADING = "Boiler pressure"
FACT = ("The boiler pressure gauge should read 1.3 bar when the heating is cold; below 1 "
        "bar, top it up with the filling loop under the boiler, a quarter turn at a time.")
QUESTION = "what should the boiler pressure read?"

ROOMS = ["hall", "kitchen", "pantry", "dining room", "living room", "study", "bathroom",
         "guest room", "bedroom", "attic", "cellar", "garage", "shed", "porch", "terrace",
         "laundry", "stairs", "landing", "nursery", "workshop"]
CHORES = ["paint", "windows", "floor", "lights", "sockets", "radiator", "curtains",
          "shelves", "door", "smoke alarm"]


def section(i: int) -> tuple[str, str]:
    room, chore = ROOMS[i % len(ROOMS)], CHORES[i % len(CHORES)]
    heading = f"{room.capitalize()} {chore}"
    text = (f"The {room} {chore} were last checked in spring. Keep the receipts in the blue "
            f"folder on the {room} shelf, and write the date of every check on the card "
            f"taped inside the cupboard door. When something in the {room} needs a "
            f"tradesperson, the landlord pays for the "
            f"{chore} only when the card shows the yearly check was done. Spare parts for "
            f"the {room} live in the grey box in the garage.")
    return heading, text


def body(sections: int = 40, fact_at: int = 37) -> str:
    parts = [f"# {TITLE}", "Everything about looking after the house, room by room."]
    for i in range(1, sections + 1):
        heading, text = (FACT_HEADING, FACT + " " + section(i)[1]) if i == fact_at \
            else section(i)
        parts.append(f"## {heading}\n\n{text}")
    return "\n\n".join(parts) + "\n"

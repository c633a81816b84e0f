"""Write the demo corpus (documents.jsonl) and claims (claims.jsonl) of affidavit.

All organisations, places and people in the demo are invented for the project. Run from this
folder: ``python make_demo.py``. The written files are shipped; this script documents how.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

RELEASE = (
    "Northwind Robotics today reported revenue of 42 million dollars for the third quarter of "
    "2025. Third-quarter revenue grew 18 percent from a year earlier, driven by orders for its "
    "warehouse picking arms. \"Our customers are automating faster than we expected,\" said chief "
    "executive Dana Okafor. The company, based in Tarrow, employs 640 people and plans to open a "
    "second assembly plant in 2026. Northwind Robotics will present its results to investors on "
    "Thursday."
)

FURNITURE = {
    "dailyledger.example": ("Daily Ledger | Home | Markets | Tech | Opinion",
                            "Related: Five stocks to watch this week. Sign up for the morning "
                            "briefing newsletter. Copyright Daily Ledger."),
    "metrowire.example": ("MetroWire | News | Business | Sport",
                          "Most read: City council approves new bus lanes. Follow MetroWire on "
                          "social media for the latest updates."),
    "techbeat.example": ("TechBeat | Gadgets | Robotics | AI",
                         "More from TechBeat: The best robot vacuums of the year. Subscribe to "
                         "the TechBeat podcast."),
    "bizpost.example": ("The Biz Post | Companies | Economy",
                        "Trending: Mortgage rates ease for a third week. The Biz Post is "
                        "reader-supported journalism."),
    "valleynews.example": ("Valley News | Local | Business | Weather",
                           "Also on Valley News: Road works on Route 9 start Monday. Send us "
                           "your news tips."),
    "regionaltimes.example": ("Regional Times | Region | Business | Culture",
                              "Editor's picks: The farmers market returns. Regional Times "
                              "newsletters are free."),
}


def doc(i: str, url: str, title: str, text: str, published_at: str | None) -> dict:
    """Return one document row in the dump format (id, url, title, text, published_at)."""
    return {"id": i, "url": url, "title": title, "text": text, "published_at": published_at}


def furnished(host: str, body: str) -> str:
    """Wrap a story body in the page furniture (menu, related links) of its host."""
    head, foot = FURNITURE[host]
    return f"{head}\n\n{body}\n\n{foot}"


def documents() -> list[dict]:
    """Return the 25 demo documents."""
    d = []
    # Story 1: one press release, six syndicated copies, four rewrites that quote it,
    # an independent regulatory filing, and a later correction (13 documents, 3 origins).
    d.append(doc("nw-release", "https://northwind-robotics.example/press/q3-2025-results",
                 "Northwind Robotics reports third-quarter 2025 results", RELEASE,
                 "2025-11-03T08:00:00Z"))
    for n, host in enumerate(FURNITURE, start=1):
        d.append(doc(f"nw-copy-{n}", f"https://{host}/business/northwind-robotics-q3-results",
                     "Northwind Robotics reports third-quarter results" if n % 2 else
                     "Northwind Robotics revenue rises in third quarter",
                     furnished(host, RELEASE), f"2025-11-03T{9 + n:02d}:15:00Z"))
    rewrites = [
        ("tarrowgazette.example", "Tarrow robot maker posts strong quarter",
         "The Tarrow manufacturer of warehouse robots had a busy autumn, according to figures it "
         "published on Monday. Third-quarter revenue grew 18 percent from a year earlier, driven "
         "by orders for its warehouse picking arms. Analysts at local brokerages had expected "
         "slower growth because of higher component prices. The firm did not give a forecast "
         "for the final quarter of the year."),
        ("automationweekly.example", "Picking-arm demand lifts Northwind",
         "Demand for automated picking in distribution centres continues to climb. Northwind "
         "Robotics today reported revenue of 42 million dollars for the third quarter of 2025. "
         "Competitors such as Brightline Systems have also reported longer order books, and "
         "several logistics groups said they would expand automation budgets next year."),
        ("investorsdigest.example", "What Northwind's numbers say about robot stocks",
         "Robot makers have been volatile on the stock market this year. \"Our customers are "
         "automating faster than we expected,\" said chief executive Dana Okafor. Investors will "
         "look for signs that the company can keep its margins as it builds a second plant. "
         "Shares of listed peers were mixed in early trading."),
        ("laborreview.example", "Hiring plans at Tarrow robot maker",
         "The company, based in Tarrow, employs 640 people and plans to open a second assembly "
         "plant in 2026. Union representatives welcomed the plan but asked for training places "
         "for local workers. The regional development agency said it had not yet received a "
         "request for support."),
    ]
    for n, (host, title, text) in enumerate(rewrites, start=1):
        d.append(doc(f"nw-rewrite-{n}", f"https://{host}/articles/northwind-{n}", title, text,
                     f"2025-11-0{3 + n}T12:00:00Z"))
    d.append(doc(
        "nw-filing", "https://filings.regulator.example/company/northwind-robotics/10-q-2025-q3",
        "Northwind Robotics quarterly report (form 10-Q) for the period ended 30 September 2025",
        "Quarterly report for the period ended 30 September 2025. Northwind Robotics recorded "
        "total revenue of 42 million dollars for the three months ended 30 September 2025, of "
        "which 3 million dollars came from a one-time licensing agreement. Product revenue was "
        "39 million dollars. Cost of revenue was 25 million dollars. The registrant had 640 "
        "full-time employees at the end of the period. Cash and cash equivalents were 61 million "
        "dollars.", "2025-11-14T16:30:00Z"))
    d.append(doc(
        "nw-correction", "https://dailyledger.example/corrections/northwind-robotics-growth",
        "Correction: Northwind Robotics growth figure",
        "Correction: An earlier report misstated the growth of Northwind Robotics' third-quarter "
        "revenue. Third-quarter revenue grew 11 percent from a year earlier, not 18 percent as "
        "previously reported. The company confirmed the corrected figure in a statement on "
        "Friday and withdrew the earlier figure.", "2025-11-21T10:00:00Z"))

    # Story 2: one origin and three syndicated copies only.
    harbor = (
        "Harbor City's new desalination plant will supply 30 percent of the city's drinking water "
        "by 2028, the municipal water board said on Tuesday. The plant on the northern shore "
        "will cost 310 million dollars and use solar power for part of its energy. Construction "
        "is due to start in the spring. Environmental groups have asked for a study of the "
        "effect of brine discharges on the bay.")
    d.append(doc("hc-origin", "https://harborcityherald.example/local/desalination-plant",
                 "Desalination plant to supply a third of Harbor City's water", harbor,
                 "2025-06-10T07:00:00Z"))
    for n, host in enumerate(["metrowire.example", "valleynews.example", "regionaltimes.example"],
                             start=1):
        d.append(doc(f"hc-copy-{n}", f"https://{host}/local/harbor-city-desalination",
                     "Harbor City plans desalination plant", furnished(host, harbor),
                     f"2025-06-10T{10 + n}:00:00Z"))

    # Story 3: two independent origins for the same fact, in different words.
    d.append(doc(
        "lb-report-1", "https://corvallocourier.example/city/lumen-bridge-opens",
        "Lumen Bridge opens to traffic",
        "After four years of construction, the Lumen Bridge in Corvallo opened to traffic on 14 "
        "May 2024. The cable-stayed bridge carries four lanes and a cycle path across the Aster "
        "River. Mayor Ilse Varga cut the ribbon in front of several hundred residents, and the "
        "first buses crossed shortly after noon.", "2024-05-14T15:00:00Z"))
    d.append(doc(
        "lb-report-2", "https://riverlandsbroadcast.example/news/2024/05/14/corvallo-bridge",
        "Corvallo's new bridge welcomes first drivers",
        "Drivers in Corvallo had a new way across the Aster River this week. The Lumen Bridge "
        "opened to traffic on 14 May 2024, ending years of ferry queues for commuters. Engineers "
        "said the 410 metre span was designed to last a century. Tolls will not be charged "
        "during the first year.", "2024-05-14T18:40:00Z"))

    # Story 4: a claim with support from one blog and a debunk from a second origin.
    d.append(doc(
        "el-blog", "https://quietstreets.example/blog/elmstead-leaf-blowers",
        "Elmstead leads the way on quiet streets",
        "Good news for anyone tired of the noise: the town of Elmstead banned all gas-powered "
        "leaf blowers in 2023. Other towns should follow its example and give residents their "
        "weekends back. We will keep campaigning until every town in the county does the same.",
        "2024-02-01T09:00:00Z"))
    d.append(doc(
        "el-factcheck", "https://countyfactcheck.example/checks/elmstead-leaf-blower-ban",
        "Did Elmstead ban gas-powered leaf blowers?",
        "Claims that the town of Elmstead banned all gas-powered leaf blowers in 2023 are false. "
        "The town council rejected the proposed ban in a 4-3 vote in October 2023, according to "
        "the published minutes of the meeting. Elmstead did not ban gas-powered leaf blowers; "
        "it only limited their use on Sundays.", "2024-03-05T11:00:00Z"))

    # Unrelated stories (give the lexical judge a realistic background of word frequencies).
    d.append(doc(
        "misc-1", "https://metrowire.example/sport/marathon-record",
        "Record field for the city marathon",
        furnished("metrowire.example",
                  "A record 21,000 runners registered for this year's city marathon, organisers "
                  "said on Monday. The route has been changed to avoid road works near the "
                  "harbour. Water stations will be placed every five kilometres."),
        "2025-04-02T08:00:00Z"))
    d.append(doc(
        "misc-2", "https://valleynews.example/weather/dry-summer",
        "Farmers warn of a dry summer",
        furnished("valleynews.example",
                  "Farmers in the valley warned that rainfall this spring was the lowest in "
                  "twenty years. Reservoir levels stood at 54 percent of capacity at the end of "
                  "May. The regional water authority asked households to avoid watering lawns "
                  "during the day."),
        "2025-06-01T06:00:00Z"))
    d.append(doc(
        "misc-3", "https://techbeat.example/gadgets/solar-chargers",
        "Solar chargers get cheaper",
        furnished("techbeat.example",
                  "Portable solar chargers fell in price by about a quarter over the last year, "
                  "according to retail data. Reviewers found that most panels delivered less "
                  "power than advertised on cloudy days. Battery capacity remains the main "
                  "limit for campers."),
        "2025-07-15T12:00:00Z"))
    d.append(doc(
        "misc-4", "https://regionaltimes.example/culture/museum-reopens",
        "Museum of Maps reopens",
        furnished("regionaltimes.example",
                  "The Museum of Maps in Corvallo reopened on Saturday after a two-year "
                  "renovation. Its collection of 12,000 charts includes a hand-drawn survey of "
                  "the Aster River from 1790. Entry will be free on the first Sunday of every "
                  "month."),
        "2025-09-20T10:00:00Z"))
    return d


CLAIMS = [
    ("demo-1", "Northwind Robotics reported third-quarter 2025 revenue of 42 million dollars.",
     "SUPPORTED: the press release and the regulatory filing are two independent origins"),
    ("demo-2", "Northwind Robotics' third-quarter revenue grew 18 percent from a year earlier.",
     "CONTESTED: the release and its copies say 18 percent, a correction says 11 percent"),
    ("demo-3", "Harbor City's desalination plant will supply 30 percent of the city's drinking "
     "water by 2028.", "PARTIAL: one origin and its syndicated copies only"),
    ("demo-4", "The Lumen Bridge in Corvallo opened to traffic on 14 May 2024.",
     "SUPPORTED: two independent reports"),
    ("demo-5", "The town of Elmstead banned all gas-powered leaf blowers in 2023.",
     "CONTESTED or CONTRADICTED: a blog says so, a fact check refutes it"),
    ("demo-6", "The Osterfeld zoo welcomed two snow leopard cubs in March 2025.",
     "UNVERIFIED: nothing in the archive"),
]


def main() -> None:
    """Write documents.jsonl and claims.jsonl beside this script."""
    with (HERE / "documents.jsonl").open("w", encoding="utf-8") as f:
        for row in documents():
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (HERE / "claims.jsonl").open("w", encoding="utf-8") as f:
        for cid, text, note in CLAIMS:
            f.write(json.dumps({"id": cid, "claim": text, "expected": note},
                               ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

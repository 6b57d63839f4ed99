"""Reports a person looks at: a read sheet as text (report/text.py), a batch folder as HTML
(report/html.py), CSV (report/csvfile.py); the cells flags and review items mark (marks.py)
and the records rendered (records.py).  Plain data in, text out: nothing here imports batch/."""

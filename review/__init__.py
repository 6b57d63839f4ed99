"""The review app (`rubberscan review DIR`): a person closes every doubt about a batch's sheets in
the browser.  app.py (the pages), folder.py (the folder and the one way a decision is made),
queue.py (the items and their providers; names.py an example beside the sheets' own),
images.py (the cells cut from the kept scans), safety.py (the rules every request passes),
server.py (waitress), labels.py (`rubberscan labels`).  What a decision does to a sheet is
batch/decided.py's."""

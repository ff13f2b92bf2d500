"""Services: the write path (the unit of work, change sets, history, approvals) and the read
rules (who is listed, what a viewer may see). They import models and formats, never the web."""

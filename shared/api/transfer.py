"""The shapes of import and export (POST /api/import, GET /api/export)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ImportFormat = Literal["chatgpt", "claude", "openwebui", "mallory"]


class ImportProblem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: str = Field(description="the conversation or message, as the file names it")
    message: str


class ImportResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: ImportFormat
    dry_run: bool
    conversations: int = Field(description="conversations read from the file")
    messages: int = Field(description="messages read from the file")
    added: int = Field(description="messages stored now (0 on a dry run)")
    already_present: int = Field(description="messages stored by an earlier import")
    forgotten: int = Field(description="messages you forgot since an earlier import: "
                           "never brought back")
    feedback: int = Field(description="judgments of sources restored (a Mallory export)")
    saved_memories: int = Field(description="saved memories restored (a Mallory export)")
    problems: list[ImportProblem] = Field(description="what was skipped or cut, and why")


class ImportParams(BaseModel):
    format: ImportFormat = Field(description="which assistant's export the body is")
    dry_run: bool = Field(False, description="read and check the file, store nothing")


class ExportParams(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    as_: Literal["json", "zip"] = Field(
        "json", alias="as", description="json: the export document; zip: it plus one "
        "Markdown file per conversation")
